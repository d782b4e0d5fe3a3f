//! What only the `p4cost` process does, not a program that calls
//! [`crate::run`]: it caps glibc's malloc arenas to the threads that work
//! at once, and leaves its largest structures to the exit (see
//! [`Ui::at_exit`](crate::Ui)).
//!
//! The arena cap (issue 26): glibc gives each thread that allocates its
//! own arena, and memory freed into one arena is not reused by another. A
//! single-program command parses on a thread of its own (a large stack)
//! and runs the class analysis on another, so the syntax tree freed after
//! lowering sat in an arena the analysis no longer allocated from: with
//! one arena `predict switch_p4_16.p4` peaks 2 MiB lower (24.6 -> 22.5 MiB)
//! and takes 4 % less CPU time (median of 15, alternated). A batch keeps
//! one arena per job: with a single one, `predict p4-samples --jobs 2`
//! took 18 % more CPU time (its workers wait on the arena's lock).

use crate::args::Command;
use crate::Ui;

/// Drops `value`, or, when the process exits after this command, leaves
/// it to the exit: the kernel takes the whole heap back at once, where
/// dropping frees it one allocation at a time (the reports and program of
/// `predict switch_p4_16.p4`: 15 M instructions, 5 % of the command). A
/// library caller of [`crate::run`] frees as usual.
pub fn leave<T>(ui: &Ui, value: T) {
    if ui.at_exit {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

/// Caps glibc's malloc arenas at the threads `command` runs at once (its
/// `--jobs` over several programs, else 1). Process-wide, so only for the
/// `p4cost` process, before any thread starts; nothing on other C
/// libraries.
pub fn cap_malloc_arenas(command: &Command) {
    let arenas = parallel_jobs(command).unwrap_or(1);
    set_arena_max(arenas);
}

/// The `--jobs` of a command over several programs; `None` for one
/// program (or a command that has no `--jobs`).
fn parallel_jobs(command: &Command) -> Option<usize> {
    let jobs = match command {
        Command::Predict(a) if !a.more.is_empty() || a.file.is_dir() => a.jobs,
        Command::Check(a) if !(a.paths.len() == 1 && a.paths[0].is_file()) => a.jobs,
        _ => return None,
    };
    crate::progress::jobs(jobs).ok()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_arena_max(arenas: usize) {
    let n = libc::c_int::try_from(arenas.max(1)).unwrap_or(libc::c_int::MAX);
    // SAFETY: mallopt only sets a tunable of glibc's allocator; called
    // before this process starts a thread.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, n);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_arena_max(_arenas: usize) {}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn command(args: &[&str]) -> Command {
        crate::args::Cli::try_parse_from(args)
            .expect("args")
            .command
    }

    #[test]
    fn one_program_runs_one_thread_at_a_time_and_a_batch_its_jobs() {
        let file = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let dir = env!("CARGO_MANIFEST_DIR");
        assert_eq!(parallel_jobs(&command(&["p4cost", "predict", file])), None);
        assert_eq!(
            parallel_jobs(&command(&["p4cost", "predict", file, file, "-j", "3"])),
            Some(3)
        );
        assert_eq!(
            parallel_jobs(&command(&["p4cost", "predict", dir, "-j", "2"])),
            Some(2)
        );
        assert_eq!(parallel_jobs(&command(&["p4cost", "check", file])), None);
        assert_eq!(
            parallel_jobs(&command(&["p4cost", "check", dir, "-j", "2"])),
            Some(2)
        );
        assert_eq!(parallel_jobs(&command(&["p4cost", "models"])), None);
    }
}
