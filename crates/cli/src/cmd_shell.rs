//! `p4cost completions SHELL` (clap_complete) and `p4cost man` (clap_mangen):
//! both generated from the one clap definition of the command line, so they
//! cannot disagree with it.

use std::io::Write;

use clap::CommandFactory;

use crate::args::{Cli, CompletionsArgs, ManArgs};
use crate::exit::{CliError, Exit};

/// Runs `completions`: the script on stdout.
pub fn completions(a: &CompletionsArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "p4cost", &mut buf);
    out.write_all(&buf).map_err(CliError::output)?;
    Ok(Exit::Ok)
}

/// Runs `man`: the roff page of p4cost, or of one subcommand, on stdout.
pub fn man(a: &ManArgs, out: &mut dyn Write) -> Result<Exit, CliError> {
    let cmd = Cli::command();
    let page = match &a.command {
        None => cmd,
        Some(name) => {
            let Some(sub) = cmd.find_subcommand(name).cloned() else {
                let names: Vec<String> = cmd
                    .get_subcommands()
                    .map(|s| s.get_name().to_string())
                    .collect();
                return Err(CliError::input(format!(
                    "no command `{name}`: give one of {}",
                    names.join(", ")
                )));
            };
            sub.display_name(format!("p4cost-{name}"))
                .bin_name(format!("p4cost {name}"))
        }
    };
    let mut buf = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut buf)
        .map_err(|e| CliError::input(e.to_string()))?;
    out.write_all(&buf).map_err(CliError::output)?;
    Ok(Exit::Ok)
}
