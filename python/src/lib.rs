//! `arbiter._arbiter`, the native half of the `arbiter` Python package: the judges, the games,
//! the players and batched random games of every game in the registry, called from Python.
//!
//! Like the `arbiter` binary this crate only converts and dispatches: Python values to
//! options, moves and actions, and results back to numbers, strings and numpy arrays. The
//! rules, the judges and the players are the library crates'; a game is found through
//! `arbiter_ai::registry`, so this file names none.

use std::any::Any;
use std::sync::Mutex;

use arbiter_ai::registry;
use arbiter_ai::{PlayerSpec, Standard};
use arbiter_core::{JudgeError, Options, Side, Status};
use numpy::{AllowTypeChange, IntoPyArray, PyArray1, PyArrayLike1, PyArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyIndexError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

mod batch;
mod codec;
mod session;

use batch::{AnyBatch, NewBatch};
use session::{AnyGame, NewSession};

create_exception!(
    arbiter,
    JudgeInputError,
    PyValueError,
    "Judge input the judge refuses; the message names the line. Attributes: `line` (1-based) \
     and `output`, what the judge printed before it (as the command line prints it)."
);
create_exception!(
    arbiter,
    IllegalMoveError,
    PyValueError,
    "A move or action that is not legal in the position; the message says why."
);

fn value_error(e: impl ToString) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The checked options of `game` from Python keyword arguments (`size=8`).
fn options_of(game: &str, given: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
    let mut pairs: Vec<(String, u64)> = Vec::new();
    for (key, value) in given.into_iter().flat_map(|d| d.iter()) {
        let name: String = key.extract()?;
        let number = value.extract::<u64>().map_err(|_| {
            value_error(format!(
                "{game}: option {name} must be a non-negative integer, not {}",
                value.repr().map_or("?".into(), |r| r.to_string())
            ))
        })?;
        pairs.push((name, number));
    }
    let pairs = pairs.iter().map(|(k, v)| (k.as_str(), *v));
    registry::options::<Standard>(game, pairs).map_err(value_error)
}

/// The games' ids, in the registry's order.
#[pyfunction]
fn games() -> Vec<&'static str> {
    registry::games::<Standard>().iter().map(|d| d.id).collect()
}

/// Runs `game`'s judge on `text` and returns exactly what `arbiter judge GAME` prints.
#[pyfunction]
fn judge(py: Python<'_>, game: &str, text: &str) -> PyResult<String> {
    let def = registry::definition::<Standard>(game).map_err(value_error)?;
    let judge = def
        .judge
        .ok_or_else(|| value_error(format!("{} has no judge", def.id)))?;
    let mut out = Vec::new();
    let result = py.detach(|| (judge.run)(&mut text.as_bytes(), &mut out));
    let output = String::from_utf8_lossy(&out).into_owned();
    match result {
        Ok(()) => Ok(output),
        Err(JudgeError::Input(e)) => {
            let err = JudgeInputError::new_err(e.to_string());
            let value = err.value(py);
            value.setattr("line", e.line)?;
            value.setattr("output", output)?;
            Err(err)
        }
        Err(JudgeError::Output(e)) => Err(PyOSError::new_err(e.to_string())),
    }
}

/// Plays `n` uniformly random games to their end in Rust — the code `arbiter bench` times —
/// and counts plies and results.
#[pyfunction]
#[pyo3(signature = (game, n, seed = 1, **options))]
fn random_playouts<'py>(
    py: Python<'py>,
    game: &str,
    n: u64,
    seed: u64,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let options = options_of(game, options)?;
    let stats = py
        .detach(|| registry::with_game::<Standard, _>(&options, Playouts { count: n, seed }))
        .map_err(value_error)?;
    let dict = PyDict::new(py);
    dict.set_item("games", stats.playouts)?;
    dict.set_item("plies", stats.total_plies)?;
    dict.set_item("wins", stats.results.to_vec())?;
    dict.set_item("seconds", stats.elapsed.as_secs_f64())?;
    Ok(dict)
}

struct Playouts {
    count: u64,
    seed: u64,
}

impl registry::GameVisitor for Playouts {
    type Output = arbiter_core::playout::PlayoutStats;
    fn visit<G: registry::FullGame>(self, start: G) -> Self::Output {
        arbiter_core::playout::random_playouts(&start, self.count, self.seed, u64::MAX)
    }
}

/// One game of any registered game: its rules, its text form and its encodings.
#[pyclass(module = "arbiter", name = "Game")]
pub struct PyGame {
    inner: Box<dyn AnyGame>,
}

/// The numpy array of `values` in `shape`.
fn array<'py, T: numpy::Element, D: numpy::ndarray::IntoDimension>(
    py: Python<'py>,
    values: Vec<T>,
    shape: D,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(values.into_pyarray(py).reshape(shape)?.into_any())
}

fn illegal(reason: String) -> PyErr {
    IllegalMoveError::new_err(reason)
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (game, **options))]
    fn new(game: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<PyGame> {
        let options = options_of(game, options)?;
        let inner =
            registry::with_game::<Standard, _>(&options, NewSession).map_err(value_error)?;
        Ok(PyGame { inner })
    }

    /// A game from `to_text`'s form (the engine protocol's `game …` and `position …` lines).
    #[staticmethod]
    fn from_text(text: &str) -> PyResult<PyGame> {
        Ok(PyGame {
            inner: session::from_text(text).map_err(value_error)?,
        })
    }

    fn to_text(&self) -> String {
        self.inner.to_text()
    }

    /// The game's id (`surakarta`).
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.def().id
    }

    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in self.inner.options().pairs() {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    /// The two sides' names, first player first (`("red", "blue")`).
    #[getter]
    fn sides(&self) -> (&'static str, &'static str) {
        let [first, second] = &self.inner.def().sides;
        (first.name, second.name)
    }

    /// The size of the action space: one action per (from, to) pair of squares.
    #[getter]
    fn num_actions(&self) -> usize {
        self.inner.layout().actions
    }

    /// `(planes, rows, cols)` of `observation()`.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        self.inner.layout().shape()
    }

    /// Square names by square number (`row * cols + col`, row 0 at the top).
    #[getter]
    fn square_names(&self) -> Vec<String> {
        self.inner.square_names()
    }

    /// What each plane of `observation()` holds.
    #[getter]
    fn plane_names(&self) -> Vec<String> {
        self.inner.plane_names()
    }

    #[getter]
    fn ply(&self) -> u32 {
        self.inner.ply()
    }

    fn legal_moves(&self) -> Vec<String> {
        self.inner.legal_moves()
    }

    /// Plays a move in the game's notation (`a1-b2`); raises `IllegalMoveError` saying why
    /// when it is not legal here.
    fn play(&mut self, notation: &str) -> PyResult<()> {
        self.inner.play_text(notation).map_err(illegal)
    }

    fn play_action(&mut self, action: i64) -> PyResult<()> {
        self.inner.play_action(action).map_err(illegal)
    }

    /// The legal actions, in the order of `legal_moves()`.
    fn legal_actions<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let actions: Vec<i64> = self
            .inner
            .legal_actions()
            .into_iter()
            .map(i64::from)
            .collect();
        actions.into_pyarray(py)
    }

    /// A flag per action, set for the legal ones.
    fn legal_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut mask = vec![false; self.inner.layout().actions];
        for a in self.inner.legal_actions() {
            if let Some(flag) = mask.get_mut(a as usize) {
                *flag = true;
            }
        }
        mask.into_pyarray(py)
    }

    /// The action number of a move written `FROM-TO` (legal or not).
    fn action_of(&self, notation: &str) -> PyResult<u32> {
        self.inner.action_of(notation).map_err(value_error)
    }

    /// The move `FROM-TO` an action stands for (legal or not).
    fn move_of(&self, action: i64) -> PyResult<String> {
        self.inner.move_of(action).map_err(value_error)
    }

    fn is_over(&self) -> bool {
        self.inner.status().is_over()
    }

    /// 0 or 1 for the side that won, `None` for a draw or a game still going.
    fn winner(&self) -> Option<u8> {
        match self.inner.status() {
            Status::Won(side) => Some(side.index() as u8),
            _ => None,
        }
    }

    /// The side to move, 0 (first) or 1; after the end, the side that did not make the last
    /// move.
    fn to_move(&self) -> u8 {
        self.inner.to_move().index() as u8
    }

    /// How the game ended in the game's words (`red captured blue's captain`), or `None`.
    fn end_reason(&self) -> Option<String> {
        self.inner.end_text()
    }

    /// The position as planes `(planes, rows, cols)` of 0.0/1.0 seen by `player` (default:
    /// the side to move); `plane_names` says what each holds.
    #[pyo3(signature = (player = None))]
    fn observation<'py>(&self, py: Python<'py>, player: Option<u8>) -> PyResult<Bound<'py, PyAny>> {
        let observer = match player {
            None => self.inner.to_move(),
            Some(p @ 0..=1) => Side::from_index(p.into()),
            Some(p) => return Err(value_error(format!("player must be 0 or 1, not {p}"))),
        };
        let l = self.inner.layout();
        let mut planes = vec![0.0f32; l.observation_len()];
        self.inner.observe(observer, &mut planes);
        array(py, planes, l.shape())
    }

    /// Everything that decides the future of the game, as the game writes it.
    fn state_text(&self) -> String {
        self.inner.state_text()
    }

    fn copy(&self) -> PyGame {
        PyGame {
            inner: self.inner.boxed_clone(),
        }
    }

    fn __copy__(&self) -> PyGame {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.copy()
    }

    /// Pickled as its text form.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let text = slf.borrow().to_text();
        let rebuild = slf.get_type().getattr("from_text")?;
        PyTuple::new(
            slf.py(),
            [rebuild, PyTuple::new(slf.py(), [text])?.into_any()],
        )
    }

    /// The board as text: the first player's pieces in capitals.
    fn render(&self) -> String {
        self.inner.render()
    }

    fn __str__(&self) -> String {
        self.inner.render()
    }

    fn __repr__(&self) -> String {
        let options: Vec<String> = self
            .inner
            .options()
            .pairs()
            .map(|(k, v)| format!(", {k}={v}"))
            .collect();
        format!(
            "<arbiter.Game('{}'{}) at ply {}>",
            self.inner.def().id,
            options.concat(),
            self.inner.ply()
        )
    }
}

/// A built-in player (`random`, `greedy`, `alphabeta:ms=50`, `mcts:iterations=2000`, `hard`,
/// …), for any game.
#[pyclass(module = "arbiter", name = "Player")]
pub struct PyPlayer {
    spec: PlayerSpec,
    seed: u64,
    /// The player built for the last game type it played (its tables kept between moves).
    built: Mutex<Option<Box<dyn Any + Send>>>,
}

#[pymethods]
impl PyPlayer {
    #[new]
    #[pyo3(signature = (spec, seed = 0))]
    fn new(spec: &str, seed: u64) -> PyResult<PyPlayer> {
        let spec: PlayerSpec = spec.parse().map_err(value_error)?;
        if matches!(spec.kind, arbiter_ai::PlayerKind::Command(_)) {
            return Err(value_error(format!(
                "player `{}`: an outside engine is run by `arbiter arena`, not built here",
                spec.text
            )));
        }
        Ok(PyPlayer {
            spec,
            seed,
            built: Mutex::new(None),
        })
    }

    #[getter]
    fn spec(&self) -> String {
        self.spec.text.clone()
    }

    /// The move this player chooses in `game` (the position is not changed). Searches run
    /// without the GIL; with no limit in its spec a search takes one second.
    fn choose(&mut self, py: Python<'_>, game: PyRef<'_, PyGame>) -> PyResult<String> {
        let slot = self.built.get_mut().unwrap_or_else(|e| e.into_inner());
        match game.inner.choose(py, slot, &self.spec, self.seed) {
            Ok(Some(mv)) => Ok(mv),
            Ok(None) => Err(value_error("the game is over: there is no move to choose")),
            Err(e) => Err(value_error(e)),
        }
    }

    fn __repr__(&self) -> String {
        format!("<arbiter.Player('{}')>", self.spec.text)
    }
}

/// `n` games of one kind stepped together in Rust, with numpy arrays in and out.
#[pyclass(module = "arbiter", name = "VectorGame")]
pub struct PyVectorGame {
    inner: Box<dyn AnyBatch>,
}

impl PyVectorGame {
    fn masks_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let l = self.inner.layout();
        let n = self.inner.len();
        let mut masks = vec![false; n * l.actions];
        self.inner.masks(&mut masks);
        array(py, masks, [n, l.actions])
    }

    fn observations_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let l = self.inner.layout();
        let n = self.inner.len();
        let mut planes = vec![0.0f32; n * l.observation_len()];
        py.detach(|| self.inner.observations(&mut planes));
        array(py, planes, [n, l.planes, l.rows, l.cols])
    }
}

#[pymethods]
impl PyVectorGame {
    #[new]
    #[pyo3(signature = (game, n, seed = 0, **options))]
    fn new(
        game: &str,
        n: usize,
        seed: u64,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyVectorGame> {
        if n == 0 {
            return Err(value_error("n must be at least 1"));
        }
        let options = options_of(game, options)?;
        let visitor = NewBatch { count: n, seed };
        let inner = registry::with_game::<Standard, _>(&options, visitor).map_err(value_error)?;
        Ok(PyVectorGame { inner })
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    #[getter]
    fn num_actions(&self) -> usize {
        self.inner.layout().actions
    }

    /// `(planes, rows, cols)` of one game's observation.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        self.inner.layout().shape()
    }

    /// Every game back to the start; returns `(observations, legal_masks)`.
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        self.inner.reset();
        Ok((self.observations_array(py)?, self.masks_array(py)?))
    }

    /// Plays `actions[i]` in game `i` (nothing is played if any is illegal: the error names
    /// the game and why). Returns `(observations, legal_masks, rewards, dones)`: the planes of
    /// each game for its side to move (`None` with `observe=False`), its legal actions,
    /// the reward of the side that just moved (+1 won, -1 lost, 0 otherwise) and whether the
    /// game ended — an ended game is started again, so its row shows the new start.
    #[pyo3(signature = (actions, observe = true))]
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyArrayLike1<'py, i64, AllowTypeChange>,
        observe: bool,
    ) -> PyResult<(
        Option<Bound<'py, PyAny>>,
        Bound<'py, PyAny>,
        Bound<'py, PyArray1<f32>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        let n = self.inner.len();
        let actions = actions.as_slice().map_err(value_error)?.to_vec();
        if actions.len() != n {
            return Err(value_error(format!(
                "expected {n} actions, one a game, got {}",
                actions.len()
            )));
        }
        let mut rewards = vec![0.0f32; n];
        let mut done = vec![false; n];
        let inner = &mut self.inner;
        py.detach(|| inner.step(&actions, &mut rewards, &mut done))
            .map_err(illegal)?;
        let observations = match observe {
            true => Some(self.observations_array(py)?),
            false => None,
        };
        Ok((
            observations,
            self.masks_array(py)?,
            rewards.into_pyarray(py),
            done.into_pyarray(py),
        ))
    }

    /// Each game's planes seen by its side to move, `(n, planes, rows, cols)`.
    fn observations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.observations_array(py)
    }

    /// Each game's legal actions, `(n, num_actions)` flags.
    fn legal_masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.masks_array(py)
    }

    /// The side to move in each game (0 or 1).
    fn to_move<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let mut sides = vec![0i8; self.inner.len()];
        self.inner.to_move(&mut sides);
        sides.into_pyarray(py)
    }

    /// A uniformly random legal action for each game (from the batch's seed).
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.inner.random_actions().into_pyarray(py)
    }

    /// A copy of game `i` as a `Game`.
    fn game(&self, i: usize) -> PyResult<PyGame> {
        let inner = self.inner.game(i).ok_or_else(|| {
            PyIndexError::new_err(format!("game {i} of a batch of {}", self.inner.len()))
        })?;
        Ok(PyGame { inner })
    }
}

#[pymodule]
fn _arbiter(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(judge, m)?)?;
    m.add_function(wrap_pyfunction!(random_playouts, m)?)?;
    m.add_class::<PyGame>()?;
    m.add_class::<PyPlayer>()?;
    m.add_class::<PyVectorGame>()?;
    m.add("JudgeInputError", m.py().get_type::<JudgeInputError>())?;
    m.add("IllegalMoveError", m.py().get_type::<IllegalMoveError>())?;
    Ok(())
}
