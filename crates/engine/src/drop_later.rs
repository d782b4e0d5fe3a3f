//! Freeing what a caller is done with, off its path: [`leave`] leaves a
//! value to the process exit, and [`DropLater`] (the front end's, which
//! frees its syntax trees with it) frees it on a thread of its own, so an
//! editor's last analysis (its program, its session) is not freed on the
//! path from keystroke to published diagnostics.

pub use p4cost_front::drop_later::DropLater;

/// Drops `value`, or, when `to_exit` (the process ends after this
/// command), leaves it to the exit: the kernel takes the whole heap back
/// at once, where dropping frees it one allocation at a time (the reports
/// and program of `predict switch_p4_16.p4`: 15 M instructions, 5 % of
/// the command). A library caller passes `false` and frees as usual.
pub fn leave<T>(to_exit: bool, value: T) {
    if to_exit {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}
