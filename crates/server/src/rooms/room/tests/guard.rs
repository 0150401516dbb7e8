//! The guard across rooms: wrong seat tokens back off exponentially (per address and per
//! room), tokens compare in constant time, and seats are capped per address and per network.

use super::seats::{started_with_tokens, BOB_TOKEN};
use super::*;
use crate::rooms::guard::{network_of, same_token};

const WRONG: &str = "0000000000000000000000000000dead";

/// A READY with a seat token from `c`; the REJECT's reason, if any.
async fn try_token(t: &mut Table, c: &mut Client, token: &str) -> Option<String> {
    let request = t.request("surakarta", &[]);
    t.ready_with(c, None, request, Some(token)).await;
    c.heard()
        .into_iter()
        .find(|m| m.op == REJECT)
        .map(|m| m.data2)
}

#[tokio::test(start_paused = true)]
async fn wrong_seat_tokens_back_off_exponentially_per_address_and_per_room() {
    let (mut t, _alice, bob) = started_with_tokens().await;
    t.close(&bob).await;
    let mut mallory = Client::at(7, "mallory", "10.0.0.1:4000".into());
    // Three free tries, each an ordinary refusal.
    for _ in 0..4 {
        let reason = try_token(&mut t, &mut mallory, WRONG).await.unwrap();
        assert_eq!(reason, "the room is playing a game");
    }
    // Then a wait of 1 s, during which even the right token is not compared.
    let reason = try_token(&mut t, &mut mallory, BOB_TOKEN).await.unwrap();
    assert_eq!(reason, "too many wrong seat tokens: try again in 1 s");
    t.advance(Duration::from_secs(1)).await;
    try_token(&mut t, &mut mallory, WRONG).await.unwrap();
    let reason = try_token(&mut t, &mut mallory, WRONG).await.unwrap();
    assert_eq!(reason, "too many wrong seat tokens: try again in 2 s");
    // The address waits in every room; the room waits for every address that has guessed
    // wrong before (an address that never did, such as the rightful player's, is let try).
    let guard = t.room.ctx.guard.clone();
    assert!(guard.may_try_token("10.0.0.1:5000", 99).is_err());
    let mut other = Client::at(8, "eve", "192.168.9.9:4000".into());
    let reason = try_token(&mut t, &mut other, WRONG).await.unwrap();
    assert_eq!(reason, "the room is playing a game");
    let reason = try_token(&mut t, &mut other, WRONG).await.unwrap();
    assert!(reason.starts_with("too many wrong seat tokens"), "{reason}");
    // Once the wait is over the rightful player's token works.
    t.advance(Duration::from_secs(2)).await;
    let mut bob_again = Client::at(9, "bob", "10.1.0.1:4000".into());
    assert_eq!(try_token(&mut t, &mut bob_again, BOB_TOKEN).await, None);
}

#[tokio::test(start_paused = true)]
async fn the_back_off_tables_stay_bounded() {
    let t = Table::new();
    let guard = t.room.ctx.guard.clone();
    for i in 0..20_000u32 {
        let addr = format!("10.{}.{}.{}:1", i >> 16, (i >> 8) & 255, i & 255);
        guard.token_failed(&addr, i);
    }
    let (by_ip, by_room) = guard.remembered();
    assert!(by_ip <= 4096 && by_room <= 4096, "{by_ip} {by_room}");
}

#[test]
fn tokens_compare_whole() {
    assert!(same_token(BOB_TOKEN, &String::from(BOB_TOKEN)));
    assert!(!same_token(BOB_TOKEN, WRONG));
    assert!(!same_token(BOB_TOKEN, &BOB_TOKEN[..31]));
}

#[tokio::test(start_paused = true)]
async fn seats_are_capped_per_address_and_per_network() {
    let limits = SeatLimits {
        per_ip: 1,
        per_net: 2,
    };
    let mut t = Table::with_limits(limits);
    let mut one = Client::at(1, "one", "10.0.0.1:1000".into());
    let mut again = Client::at(2, "again", "10.0.0.1:1001".into());
    t.ready(&one, None).await;
    t.ready(&again, None).await;
    let reject = again.one();
    assert_eq!(
        fields(&reject),
        (
            REJECT,
            "again",
            "too many seats held from your address (at most 1 at once)",
            ""
        )
    );
    // Another room, the same address: refused too, until the first seat is let go.
    let mut elsewhere = Table::with_limits(limits);
    elsewhere.room.ctx = t.room.ctx.clone();
    elsewhere.ready(&again, None).await;
    assert_eq!(again.one().op, REJECT);
    t.send(&one, LEAVE, "one", "bye").await;
    elsewhere.ready(&again, None).await;
    again.silent();
    // The network's cap: a neighbour in 10.0.0.0/24 fills it, a third is refused.
    let neighbour = Client::at(3, "two", "10.0.0.2:1000".into());
    t.ready(&neighbour, None).await;
    let mut third = Client::at(4, "three", "10.0.0.3:1000".into());
    t.ready(&third, None).await;
    assert!(third.one().data2.contains("your network (at most 2"));
    one.silent();
}

#[test]
fn networks_are_slash_24_and_slash_64() {
    let net = |s: &str| network_of(s.parse().unwrap()).to_string();
    assert_eq!(net("10.1.2.3"), "10.1.2.0");
    assert_eq!(net("::ffff:10.1.2.3"), "10.1.2.0");
    assert_eq!(net("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::");
}
