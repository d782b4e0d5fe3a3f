//! What only the `p4cost` process does, not a program that calls
//! [`crate::run`]: it caps glibc's malloc arenas to the threads that work
//! at once. (Leaving its largest structures to the exit, see
//! [`Ui::at_exit`](crate::Ui), is `p4cost_engine::drop_later::leave`.)
//!
//! The arena cap (issue 26): glibc gives each thread that allocates its
//! own arena, and memory freed into one arena is not reused by another.
//! `predict` parses on a thread of its own (a large stack) and runs the
//! class analysis on another, so the syntax tree freed after lowering sat
//! in an arena the analysis no longer allocated from. With one arena
//! (median of 15, alternated, `scripts/cpu-ratio --env MALLOC_ARENA_MAX=1`):
//! switch_p4_16.p4 (239 KB) 0.96x CPU and 24.6 -> 22.5 MiB; generated
//! programs of 0.34 MB 0.99x and 0.88x the memory, 0.92 MB 1.02x and
//! 0.86x, 4.7 MB 1.16x the CPU (the threads wait on the one arena's lock;
//! the instructions are the same) and 0.81x. So one arena for a program
//! file of at most [`ONE_ARENA_MAX_BYTES`], glibc's default above it and
//! for batches (`predict p4-samples --jobs 2`: 1.18x the CPU with one).
//!
//! The heap's huge pages: [`crate::huge_heap`].

use crate::args::Command;

/// Largest program file `predict` runs with one malloc arena.
pub const ONE_ARENA_MAX_BYTES: u64 = 512 << 10;

/// Caps glibc's malloc arenas at one for `predict` of one program file
/// of at most [`ONE_ARENA_MAX_BYTES`]. Process-wide, so only for the
/// `p4cost` process, before any thread starts; nothing on other C
/// libraries.
pub fn cap_malloc_arenas(command: &Command) {
    if one_arena(command) {
        set_arena_max(1);
    }
}

/// True for `predict` of one regular file of at most
/// [`ONE_ARENA_MAX_BYTES`].
fn one_arena(command: &Command) -> bool {
    match command {
        Command::Predict(a) if a.more.is_empty() => {
            std::fs::metadata(&a.file).is_ok_and(|m| m.is_file() && m.len() <= ONE_ARENA_MAX_BYTES)
        }
        _ => false,
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_arena_max(arenas: libc::c_int) {
    // SAFETY: mallopt only sets a tunable of glibc's allocator; called
    // before this process starts a thread.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, arenas);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_arena_max(_arenas: i32) {}

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
    fn one_arena_for_one_small_program_file_only() {
        let small = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let dir = env!("CARGO_MANIFEST_DIR");
        let big = std::env::temp_dir().join(format!("p4cost-arena-{}.p4", std::process::id()));
        std::fs::write(&big, vec![b' '; ONE_ARENA_MAX_BYTES as usize + 1]).unwrap();
        let big = big.to_str().unwrap().to_string();
        assert!(one_arena(&command(&["p4cost", "predict", small])));
        assert!(!one_arena(&command(&["p4cost", "predict", &big])));
        assert!(!one_arena(&command(&["p4cost", "predict", small, small])));
        assert!(!one_arena(&command(&["p4cost", "predict", dir])));
        assert!(!one_arena(&command(&["p4cost", "predict", "-"])));
        assert!(!one_arena(&command(&["p4cost", "check", small])));
        std::fs::remove_file(&big).ok();
    }
}
