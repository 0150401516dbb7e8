//! The pieces that stand threatened, kind by kind: read by the hand-written threat terms and
//! by the network's threat inputs alike.

use arbiter_core::Side;
use arbiter_duck::{PieceKind, Position};

use super::{attacks_of, PerKind, SideView};

/// Calls `hit(kind, squares)` for each kind but the captain with the squares of `side`'s pieces
/// of that kind that stand threatened: attacked (`enemy` kind by kind, `attacked` all of it)
/// where nothing of `side` defends them (`defended`), or by an enemy kind `cheaper` than theirs.
/// The threat terms and the network's threat inputs both read them.
pub(super) fn for_each_threatened_kind(
    pos: &Position,
    side: Side,
    defended: u128,
    (enemy, attacked): (&[u128; 7], u128),
    cheaper: &[u8; 7],
    mut hit: impl FnMut(usize, u128),
) {
    let pieces = pos.side_set(side) & attacked;
    for kind in PieceKind::ALL
        .into_iter()
        .filter(|&k| k != PieceKind::Captain)
    {
        let k = kind as usize;
        let by_cheaper = attacks_of(cheaper[k], enemy);
        hit(k, pieces & pos.kind_set(kind) & (!defended | by_cheaper));
    }
}

/// The value of `side`'s threatened pieces (the captain counts as priceless, so it is left
/// out), and their squares.
pub(super) fn threatened_value(
    pos: &Position,
    side: Side,
    own: &SideView,
    enemy: &SideView,
    per_kind: &PerKind,
) -> (i32, u128) {
    let (mut total, mut squares) = (0, 0);
    let enemy_attacks = (&enemy.attacks, enemy.all);
    for_each_threatened_kind(
        pos,
        side,
        own.all,
        enemy_attacks,
        &per_kind.cheaper,
        |k, hit| {
            total += per_kind.value[k] * hit.count_ones() as i32;
            squares |= hit;
        },
    );
    (total, squares)
}
