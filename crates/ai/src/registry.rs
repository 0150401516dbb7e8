//! The one list of games every layer reads — the CLI, the engine protocol, the arena, the
//! server and (through the server's catalogue) the page.
//!
//! A catalogue is a type: a list of game types built from pairs, `(Duck, (Surakarta, (Rc02,
//! ())))`. Finding a game by id and calling a [`GameVisitor`] with its start position
//! monomorphises the visitor for that game, so search code runs at full speed; the list itself
//! is written once, in [`Standard`]. A program that adds a game registers it by naming a longer
//! list, `(MyGame, Standard)`, without touching this file (see `docs/adding-a-game.md`).
//!
//! Unknown ids and bad options are refused here, with one message that lists what exists.

use arbiter_core::{GameDef, OptionError, Options, Rules};
use thiserror::Error;

use crate::eval::Evaluate;

/// What a game needs to be played by every layer: its rules (definition, start, ends, board)
/// and an evaluation for the players.
pub trait FullGame: Rules + Evaluate {}

impl<G: Rules + Evaluate> FullGame for G {}

/// Code generic over the game, called with the start position of the one asked for.
pub trait GameVisitor {
    type Output;
    fn visit<G: FullGame>(self, start: G) -> Self::Output;
}

/// A list of games (see the module's documentation).
pub trait Catalogue: Send + Sync + 'static {
    /// Appends each game's definition, in the list's order.
    fn collect(out: &mut Vec<&'static GameDef>);

    /// Calls `visitor` with the start of the game `options` belong to; gives the visitor back
    /// when that game is not in the list.
    fn dispatch<V: GameVisitor>(options: &Options, visitor: V) -> Result<V::Output, V>;
}

impl Catalogue for () {
    fn collect(_: &mut Vec<&'static GameDef>) {}

    fn dispatch<V: GameVisitor>(_: &Options, visitor: V) -> Result<V::Output, V> {
        Err(visitor)
    }
}

impl<G: FullGame, Rest: Catalogue> Catalogue for (G, Rest) {
    fn collect(out: &mut Vec<&'static GameDef>) {
        out.push(G::definition());
        Rest::collect(out);
    }

    fn dispatch<V: GameVisitor>(options: &Options, visitor: V) -> Result<V::Output, V> {
        if options.def().id == G::definition().id {
            Ok(visitor.visit(G::start(options)))
        } else {
            Rest::dispatch(options, visitor)
        }
    }
}

/// The games arbiter ships: Duck Chess, Surakarta and the RC-02 game.
pub type Standard = (
    arbiter_duck::Position,
    (arbiter_surakarta::Position, (arbiter_rc02::Position, ())),
);

/// A game name that is not in the catalogue; the text lists those that are.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown game `{given}` (games: {known})")]
pub struct UnknownGame {
    pub given: String,
    pub known: String,
}

/// A game that cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CatalogueError {
    #[error(transparent)]
    Unknown(#[from] UnknownGame),
    #[error(transparent)]
    Option(#[from] OptionError),
}

/// Every game of the catalogue, in its order.
pub fn games<C: Catalogue>() -> Vec<&'static GameDef> {
    let mut out = Vec::new();
    C::collect(&mut out);
    out
}

/// `duck, surakarta, rc02`.
pub fn game_ids<C: Catalogue>() -> String {
    let ids: Vec<&str> = games::<C>().iter().map(|d| d.id).collect();
    ids.join(", ")
}

/// The definition of the game called `id` in catalogue `C`.
pub fn definition<C: Catalogue>(id: &str) -> Result<&'static GameDef, UnknownGame> {
    definition_in(&games::<C>(), id)
}

/// The definition called `id` among `defs` (a catalogue's, as a server keeps them): by its id
/// or one of its aliases, in any case; the error lists them all.
pub fn definition_in(defs: &[&'static GameDef], id: &str) -> Result<&'static GameDef, UnknownGame> {
    let named = |d: &&GameDef| {
        d.id.eq_ignore_ascii_case(id) || d.aliases.iter().any(|a| a.eq_ignore_ascii_case(id))
    };
    defs.iter().copied().find(named).ok_or_else(|| UnknownGame {
        given: arbiter_core::text::shorten(id),
        known: defs.iter().map(|d| d.id).collect::<Vec<_>>().join(", "),
    })
}

/// The options of game `id` with `given` set (defaults for the rest), each checked.
pub fn options<'a, C: Catalogue>(
    id: &str,
    given: impl IntoIterator<Item = (&'a str, u64)>,
) -> Result<Options, CatalogueError> {
    Ok(definition::<C>(id)?.options_from(given)?)
}

/// Calls `visitor` with the start of the game `options` are for.
pub fn with_game<C: Catalogue, V: GameVisitor>(
    options: &Options,
    visitor: V,
) -> Result<V::Output, CatalogueError> {
    C::dispatch(options, visitor).map_err(|_| {
        CatalogueError::Unknown(UnknownGame {
            given: options.def().id.to_string(),
            known: game_ids::<C>(),
        })
    })
}

#[cfg(test)]
mod tests {
    use arbiter_core::suite::{check_game, SuiteConfig};

    use super::*;

    /// Runs the conformance suite on every game of a catalogue at its default options.
    struct Suite;

    impl GameVisitor for Suite {
        type Output = Result<(), String>;
        fn visit<G: FullGame>(self, start: G) -> Result<(), String> {
            let config = SuiteConfig {
                games: 10,
                perft_depth: 3,
                ..SuiteConfig::default()
            };
            check_game::<G>(&start.options(), config).map(|_| ())
        }
    }

    #[test]
    fn every_registered_game_passes_the_suite() {
        let all = games::<Standard>();
        assert_eq!(game_ids::<Standard>(), "duck, surakarta, rc02");
        for def in all {
            with_game::<Standard, _>(&def.defaults(), Suite)
                .unwrap()
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }

    /// Counts how random games end, move by move, as `random_playouts` must.
    struct PlayoutResults;

    impl GameVisitor for PlayoutResults {
        type Output = ([u64; 3], [u64; 3]);
        fn visit<G: FullGame>(self, start: G) -> Self::Output {
            use rand::SeedableRng;
            let (count, seed) = (60, 9);
            let fast = arbiter_core::playout::random_playouts(&start, count, seed, u64::MAX);
            let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
            let mut slow = [0; 3];
            let mut scratch = arbiter_core::MoveList::new();
            for _ in 0..count {
                let mut game = start.clone();
                arbiter_core::play_random_moves(&mut game, &mut rng, u64::MAX, &mut scratch);
                slow[match game.end().and_then(|end| end.winner) {
                    Some(side) => side.index(),
                    None => 2,
                }] += 1;
            }
            (fast.results, slow)
        }
    }

    #[test]
    fn random_playouts_count_each_result_as_the_game_ended() {
        for def in games::<Standard>() {
            let (fast, slow) = with_game::<Standard, _>(&def.defaults(), PlayoutResults).unwrap();
            assert_eq!(fast, slow, "{}", def.id);
            assert_eq!(fast.iter().sum::<u64>(), 60, "{}", def.id);
            assert!(fast[0] > 0 && fast[1] > 0, "{}: {fast:?}", def.id);
        }
    }

    #[test]
    fn unknown_games_and_options_are_refused_with_what_exists() {
        let e = options::<Standard>("chess", []).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown game `chess` (games: duck, surakarta, rc02)"
        );
        let e = options::<Standard>("duck", [("size", 8)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "duck: there is no option `size` (duck takes max_no_capture_round)"
        );
        let e = options::<Standard>("rc02", [("size", 5)]).unwrap_err();
        assert_eq!(e.to_string(), "rc02: size must be 4, 6, 8 or 10, not 5");
    }
}
