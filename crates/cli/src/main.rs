//! The `arbiter` binary: the command line of [`arbiter_cli`] for the games arbiter ships.

fn main() -> std::process::ExitCode {
    arbiter_cli::main::<arbiter_ai::Standard>()
}
