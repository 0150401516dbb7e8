//! arbiter with one more game: the whole command line (`games`, `perft`, `bench`, `arena`,
//! `engine`, `serve`) for Hexapawn and the shipped games, registered in the one line of `main`.
//!
//! ```sh
//! cargo run --release -p arbiter-cli --example hexapawn -- arena hexapawn \
//!     --player ab=alphabeta --player rnd=random --games 20
//! ```

mod game;

fn main() -> std::process::ExitCode {
    arbiter_cli::main::<(game::Hexapawn, arbiter_ai::Standard)>()
}
