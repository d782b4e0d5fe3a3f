//! The `p4cost` command: a thin shell around [`p4cost_cli::main`].
fn main() -> std::process::ExitCode {
    p4cost_cli::main()
}
