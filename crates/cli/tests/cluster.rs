//! `arbiter serve --cluster`: real nodes (the binary) on one PostgreSQL and one nats-server,
//! started by the test (docs/cluster.md). Players on different nodes play one game; the node
//! that owns the room is killed with SIGKILL, and the game carries on from the store.

mod common;

use std::time::{Duration, Instant};

use arbiter_pgtest::TestNats;
use arbiter_pgtest::TestPostgres;
use arbiter_server::protocol::{END, MOVE, READY, RESIGN, STATE, WATCH};
use common::cluster::{
    moves_of, page_seat, signal, started_between, stored_game, temp, token, Node, Player,
};
use serde_json::{json, Value};

/// Alice on node a opens `room` and Bob plays from node b (see [`started_between`]).
fn started_on_two_nodes(nodes: &[Node], room: &str, bob_seat: Option<Value>) -> (Player, Player) {
    started_between(&nodes[0], &nodes[1], room, bob_seat)
}

/// Two nodes, a and b, on `db` and `nats`.
fn two_nodes(db: &str, nats: &TestNats, dir: &std::path::Path) -> Vec<Node> {
    ["a", "b"]
        .iter()
        .map(|n| Node::start(n, db, &nats.url(), dir))
        .collect()
}

#[test]
fn a_course_client_a_page_and_a_spectator_on_three_nodes_see_one_game() {
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("three");
    let nodes: Vec<Node> = ["a", "b", "c"]
        .iter()
        .map(|n| Node::start(n, &db, &nats.url(), &dir))
        .collect();
    // A course client: no extension, no token.
    let mut alice = Player::connect(&nodes[0]);
    alice.send(READY, "alice", "BLACK", "4", json!({}));
    std::thread::sleep(Duration::from_millis(300));
    let mut bob = Player::connect(&nodes[1]);
    let extension = json!({"game": "surakarta", "token": token('b')});
    bob.send(READY, "bob", "WHITE", "4", extension);
    assert_eq!(alice.expect(READY)["data1"], "bob");
    assert_eq!(bob.expect(READY)["data1"], "alice");
    let mut carol = Player::connect(&nodes[2]);
    carol.send(WATCH, "4", "", "", json!({}));
    carol.expect(STATE);
    let moves = [("A2", "A3"), ("F5", "E4"), ("B2", "B3"), ("E4", "D4")];
    for (i, (from, to)) in moves.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut alice, &mut bob)
        } else {
            (&mut bob, &mut alice)
        };
        mover.send(MOVE, from, to, "", json!({}));
        assert_eq!(other.expect(MOVE)["data1"], *from);
        assert_eq!(carol.expect(MOVE)["data2"], *to);
    }
    alice.send(RESIGN, "", "", "", json!({}));
    for p in [&mut alice, &mut bob, &mut carol] {
        assert_eq!(p.expect(END)["data3"], "1", "white wins");
    }
    for node in &nodes {
        let game = stored_game(node, 4);
        assert_eq!(moves_of(&game), ["A2-A3", "F5-E4", "B2-B3", "E4-D4"]);
        assert_eq!(game["end_reason"], "RESIGN");
    }
}

#[test]
fn the_game_goes_on_when_the_node_owning_its_room_is_killed() {
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("failover");
    let mut nodes: Vec<Node> = ["a", "b", "c"]
        .iter()
        .map(|n| Node::start(n, &db, &nats.url(), &dir))
        .collect();
    let seat = page_seat;
    // Alice on node a opens room 9, so node a owns it; Bob plays from node b.
    let (mut alice, mut bob) = started_on_two_nodes(&nodes, "9", Some(seat('b')));
    bob.send(MOVE, "F5", "E4", "", json!({}));
    alice.expect(MOVE);
    // The owner dies, and Alice's connection with it.
    nodes[0].kill();
    let killed = Instant::now();
    drop(alice);
    // Alice's page reconnects through another node with its seat token.
    let mut alice = Player::connect(&nodes[2]);
    alice.send(READY, "alice", "BLACK", "9", seat('a'));
    assert_eq!(alice.expect(READY)["data2"], "BLACK");
    let state = alice.expect(STATE);
    let snapshot: Value = serde_json::from_str(state["data1"].as_str().unwrap()).unwrap();
    assert_eq!(snapshot["moves"], json!(["A2-A3", "F5-E4"]), "{snapshot}");
    alice.send(MOVE, "B2", "B3", "", json!({}));
    // Bob kept his connection to node b, which attached him to the room's new owner.
    bob.sees_moves(&["A2-A3", "F5-E4", "B2-B3"]);
    let failover = killed.elapsed();
    bob.send(MOVE, "E4", "D4", "", json!({}));
    assert_eq!(alice.expect(MOVE)["data1"], "E4");
    alice.send(RESIGN, "", "", "", json!({}));
    assert_eq!(bob.expect(END)["data3"], "1");
    let game = stored_game(&nodes[1], 9);
    assert_eq!(moves_of(&game), ["A2-A3", "F5-E4", "B2-B3", "E4-D4"]);
    assert_eq!(game["end_reason"], "RESIGN");
    eprintln!("failover: {failover:?} from the kill to the next move forwarded");
}

#[test]
fn an_owner_paused_past_its_lease_gives_the_room_up_and_its_player_moves_over() {
    let (db, _pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("paused");
    let nodes = two_nodes(&db, &nats, &dir);
    let bob_seat = json!({"game": "surakarta", "token": token('b')});
    let (mut alice, mut bob) = started_on_two_nodes(&nodes, "11", Some(bob_seat));
    // Node a stops past its lease: node b takes the room over and seats Bob again.
    signal(&nodes[0], "-STOP");
    bob.expect(STATE);
    bob.send(MOVE, "F5", "E4", "", json!({}));
    // Node a comes back: it must not run the room any more, and Alice is moved to node b's.
    signal(&nodes[0], "-CONT");
    alice.sees_moves(&["A2-A3", "F5-E4"]);
    alice.send(MOVE, "B2", "B3", "", json!({}));
    bob.sees_moves(&["A2-A3", "F5-E4", "B2-B3"]);
    let game = stored_game(&nodes[1], 11);
    assert_eq!(moves_of(&game), ["A2-A3", "F5-E4", "B2-B3"]);
    // The log is written by a thread of its own: give it a moment.
    let gave_up = [
        "room 11: its lease was not renewed in time",
        "room 11: lease lost",
        "room 11: let go here",
    ];
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let log_a = std::fs::read_to_string(dir.join("a.log")).unwrap_or_default();
        if gave_up.iter().any(|line| log_a.contains(line)) {
            break;
        }
        assert!(Instant::now() < deadline, "node a never gave room 11 up");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_game_goes_on_after_nats_server_restarts() {
    let (db, _pg) = TestPostgres::start();
    let mut nats = TestNats::start();
    let dir = temp("nats-restart");
    let nodes = two_nodes(&db, &nats, &dir);
    // Bob is a course client.
    let (mut alice, mut bob) = started_on_two_nodes(&nodes, "21", None);
    nats.restart();
    // Both nodes reconnect by themselves; the course client's move waits in its gateway until
    // the owner answers again.
    bob.send(MOVE, "F5", "E4", "", json!({}));
    alice.sees_moves(&["A2-A3", "F5-E4"]);
    alice.send(MOVE, "B2", "B3", "", json!({}));
    bob.sees_moves(&["A2-A3", "F5-E4", "B2-B3"]);
    bob.send(RESIGN, "", "", "", json!({}));
    assert_eq!(alice.expect(END)["data3"], "0", "black wins");
    let game = stored_game(&nodes[1], 21);
    assert_eq!(moves_of(&game), ["A2-A3", "F5-E4", "B2-B3"]);
    assert_eq!(game["end_reason"], "RESIGN");
}

/// While nats-server is away, the owner's delivery of a move to a course client on another node
/// can reach the new server before that node has subscribed again, and be lost: the gateway asks
/// for what it missed once it is connected again, so the client hears every move, once.
#[test]
fn a_course_client_hears_every_move_made_while_nats_server_was_away() {
    let (db, _pg) = TestPostgres::start();
    let mut nats = TestNats::start();
    let dir = temp("nats-lost");
    let nodes = two_nodes(&db, &nats, &dir);
    // Alice (a page) on node a, which owns the room; Bob a course client on node b.
    let (mut alice, mut bob) = started_on_two_nodes(&nodes, "25", None);
    let rounds = [
        ("A5", "A4", "B2", "B3"),
        ("B5", "B4", "C2", "C3"),
        ("C5", "C4", "D2", "D3"),
    ];
    let mut moves = vec!["A2-A3".to_string()];
    for (bob_from, bob_to, alice_from, alice_to) in rounds {
        bob.send(MOVE, bob_from, bob_to, "", json!({}));
        moves.push(format!("{bob_from}-{bob_to}"));
        let expected: Vec<&str> = moves.iter().map(String::as_str).collect();
        alice.sees_moves(&expected);
        nats.stop();
        alice.send(MOVE, alice_from, alice_to, "", json!({}));
        moves.push(format!("{alice_from}-{alice_to}"));
        std::thread::sleep(Duration::from_millis(300));
        nats.restart();
        let expected: Vec<&str> = moves.iter().map(String::as_str).collect();
        bob.sees_moves(&expected);
    }
    bob.send(RESIGN, "", "", "", json!({}));
    assert_eq!(alice.expect(END)["data3"], "0", "black wins");
    assert_eq!(bob.expect(END)["data3"], "0");
    assert_eq!(moves_of(&stored_game(&nodes[1], 25)), moves);
}

#[test]
fn a_move_that_cannot_be_stored_is_never_forwarded_and_the_game_goes_on_once_postgresql_is_back() {
    let (db, mut pg) = TestPostgres::start();
    let nats = TestNats::start();
    let dir = temp("pg-restart");
    let nodes = two_nodes(&db, &nats, &dir);
    let bob_seat = json!({"game": "surakarta", "token": token('b')});
    let (mut alice, mut bob) = started_on_two_nodes(&nodes, "23", Some(bob_seat));
    // PostgreSQL restarts between two moves: the game goes on, every move stored once.
    pg.restart();
    bob.send(MOVE, "F5", "E4", "", json!({}));
    alice.sees_moves(&["A2-A3", "F5-E4"]);
    assert_eq!(moves_of(&stored_game(&nodes[1], 23)), ["A2-A3", "F5-E4"]);
    // PostgreSQL is down when Alice moves, and stays down past the lease: the move is never
    // stored, so Bob never hears it, and nobody is told the game ended. Node a hands the room
    // over; once PostgreSQL is back a node takes it over from the store, Alice's page gets the
    // game as stored and moves again, and the game goes on.
    pg.stop();
    alice.send(MOVE, "B2", "B3", "", json!({}));
    std::thread::sleep(Duration::from_secs(6));
    pg.restart();
    let state = alice.expect(STATE);
    assert_eq!(alice.moves, ["A2-A3", "F5-E4"], "{state}");
    alice.send(MOVE, "B2", "B3", "", json!({}));
    while bob.moves.len() < 3 {
        let heard = bob.next();
        assert_ne!(heard["op"], END, "{heard}");
    }
    assert_eq!(bob.moves, ["A2-A3", "F5-E4", "B2-B3"]);
    bob.send(RESIGN, "", "", "", json!({}));
    assert_eq!(alice.expect(END)["data3"], "0", "black wins");
    let game = stored_game(&nodes[1], 23);
    assert_eq!(moves_of(&game), ["A2-A3", "F5-E4", "B2-B3"]);
    assert_eq!(game["end_reason"], "RESIGN");
}
