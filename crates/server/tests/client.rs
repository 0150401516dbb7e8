//! `arbiter connect`'s client against scripted servers: endings a friendly opponent never
//! produces, servers that echo moves, close early or fall silent, and what the record says.

use std::time::Duration;

use arbiter_ai::Standard;
use arbiter_pgtest::TestDir;
use arbiter_server::client::{connect, ClientError, ConnectOptions, ConnectOutcome};
use arbiter_server::protocol::{Message, END, MOVE, READY};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

fn options(port: u16) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port,
        colour: "BLACK".into(),
        name: "late".into(),
        room: 1,
        game: None,
        options: Vec::new(),
        player: "random".parse().unwrap(),
        record: None,
        seed: 1,
        wait: Duration::from_secs(10),
        quiet: false,
        gate: None,
    }
}

fn line(m: &Message) -> String {
    format!("{}\n", m.to_line())
}

/// What a scripted server does after it has started the game.
#[derive(Clone)]
enum Step {
    /// Read the client's MOVE; send it straight back when `echo` is set.
    ReadMove {
        echo: bool,
    },
    /// Send the opponent's move.
    Move(&'static str, &'static str),
    /// END(timeout, white wins) counting `plies` moves.
    EndByTimeout {
        plies: u64,
    },
    Close,
    /// Say nothing, for longer than the client waits.
    Silence,
}

/// A server that reads the READY, answers with `ready`, then runs `steps`; returns the READY
/// it read and the moves the client sent.
async fn scripted(
    ready: Message,
    steps: Vec<Step>,
) -> (u16, tokio::task::JoinHandle<(Message, Vec<Message>)>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read).lines();
        let theirs = Message::parse(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(theirs.op, READY);
        write.write_all(line(&ready).as_bytes()).await.unwrap();
        let mut moves = Vec::new();
        for step in steps {
            match step {
                Step::ReadMove { echo } => {
                    let mv = Message::parse(&lines.next_line().await.unwrap().unwrap()).unwrap();
                    assert_eq!(mv.op, MOVE);
                    if echo {
                        write.write_all(line(&mv).as_bytes()).await.unwrap();
                    }
                    moves.push(mv);
                }
                Step::Move(from, to) => {
                    let m = Message::new(MOVE, from, to, "");
                    write.write_all(line(&m).as_bytes()).await.unwrap();
                }
                Step::EndByTimeout { plies } => {
                    let mut end = Message::new(END, "", "5", "1");
                    end.extra.insert("plies".into(), plies.into());
                    write.write_all(line(&end).as_bytes()).await.unwrap();
                }
                Step::Close => return (theirs, moves),
                Step::Silence => tokio::time::sleep(Duration::from_secs(60)).await,
            }
        }
        // Keep the connection open until the client is done with it.
        while let Ok(Some(_)) = lines.next_line().await {}
        (theirs, moves)
    });
    (port, task)
}

fn black_ready() -> Message {
    Message::new(READY, "opponent", "BLACK", "1")
}

fn temp_dir(name: &str) -> TestDir {
    TestDir::new(&format!("arbiter-client-{name}-"))
}

async fn play(options: &ConnectOptions) -> Result<ConnectOutcome, ClientError> {
    connect::<Standard>(options).await
}

#[tokio::test]
async fn a_move_sent_after_the_clock_ran_out_is_not_in_the_record() {
    let steps = vec![
        Step::ReadMove { echo: false },
        Step::EndByTimeout { plies: 0 },
    ];
    let (port, server) = scripted(black_ready(), steps).await;
    let outcome = play(&options(port)).await.unwrap();
    server.await.unwrap();
    assert_eq!(outcome.record, "T#");
}

#[tokio::test]
async fn a_counted_move_stays_in_the_record() {
    let steps = vec![
        Step::ReadMove { echo: false },
        Step::EndByTimeout { plies: 1 },
    ];
    let (port, server) = scripted(black_ready(), steps).await;
    let outcome = play(&options(port)).await.unwrap();
    let (_, moves) = server.await.unwrap();
    assert_eq!(
        outcome.record,
        format!("{}-{} T#", moves[0].data1, moves[0].data2)
    );
}

#[tokio::test]
async fn the_course_ready_names_room_1_and_the_record_has_no_final_newline() {
    let dir = temp_dir("newline");
    let mut o = options(0);
    let steps = vec![
        Step::ReadMove { echo: false },
        Step::EndByTimeout { plies: 1 },
    ];
    let (port, server) = scripted(black_ready(), steps).await;
    o.port = port;
    // The folder does not exist yet: the client makes it before the game.
    o.record = Some(dir.join("records").join("black.txt"));
    let outcome = play(&o).await.unwrap();
    let (ready, _) = server.await.unwrap();
    assert_eq!(ready.data3, "1");
    assert!(ready.extra.is_empty(), "a plain course READY: {ready:?}");
    let written = std::fs::read_to_string(o.record.unwrap()).unwrap();
    assert_eq!(written, outcome.record);
    assert!(!written.ends_with('\n'));
}

#[tokio::test]
async fn a_server_that_echoes_moves_is_not_mistaken_for_the_opponent() {
    // Black moves, the server echoes it, white answers, black moves again, then the end.
    let steps = vec![
        Step::ReadMove { echo: true },
        Step::Move("A5", "A4"),
        Step::ReadMove { echo: true },
        Step::EndByTimeout { plies: 3 },
    ];
    let (port, server) = scripted(black_ready(), steps).await;
    let outcome = play(&options(port)).await.unwrap();
    let (_, sent) = server.await.unwrap();
    let texts: Vec<String> = sent
        .iter()
        .map(|m| format!("{}-{}", m.data1, m.data2))
        .collect();
    assert_eq!(
        outcome.record,
        format!("{} A5-A4 {} T#", texts[0], texts[1])
    );
}

#[tokio::test]
async fn a_server_that_closes_before_the_end_still_gets_a_record() {
    let dir = temp_dir("closed");
    let steps = vec![Step::ReadMove { echo: false }, Step::Close];
    let (port, server) = scripted(black_ready(), steps).await;
    let mut o = options(port);
    o.record = Some(dir.join("black.txt"));
    let error = play(&o).await.unwrap_err();
    let (_, sent) = server.await.unwrap();
    let first = format!("{}-{}", sent[0].data1, sent[0].data2);
    match error {
        ClientError::Unfinished { reason, record } => {
            assert!(reason.contains("closed the connection"), "{reason}");
            assert_eq!(record, first);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("black.txt")).unwrap(),
        first
    );
}

#[tokio::test]
async fn a_silent_server_is_given_up_on() {
    let mut ready = black_ready();
    ready.extra.insert("timeout_ms".into(), 100.into());
    let steps = vec![Step::ReadMove { echo: false }, Step::Silence];
    let (port, _server) = scripted(ready, steps).await;
    let started = std::time::Instant::now();
    let error = play(&options(port)).await.unwrap_err();
    assert!(error.to_string().contains("said nothing"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[tokio::test]
async fn the_game_and_options_come_from_the_servers_ready() {
    // Asked for nothing; the server starts an 8×8 Surakarta game. Black opens on column H,
    // which only an 8×8 board has, and white (the client) answers from its row 7.
    let mut ready = Message::new(READY, "opponent", "WHITE", "1");
    ready.extra.insert("game".into(), "surakarta".into());
    ready.extra.insert("size".into(), 8.into());
    let steps = vec![
        Step::Move("H2", "H3"),
        Step::ReadMove { echo: false },
        Step::EndByTimeout { plies: 2 },
    ];
    let (port, server) = scripted(ready, steps).await;
    let mut o = options(port);
    o.colour = "WHITE".into();
    let outcome = play(&o).await.unwrap();
    let (_, sent) = server.await.unwrap();
    assert!(sent[0].data1.ends_with('7'), "{:?}", sent[0]);
    assert!(outcome.record.starts_with("H2-H3 "), "{}", outcome.record);
    // A server that names a game arbiter does not know is refused clearly.
    let mut ready = black_ready();
    ready.extra.insert("game".into(), "chess".into());
    let (port, _server) = scripted(ready, vec![]).await;
    let error = play(&options(port)).await.unwrap_err();
    assert!(
        error.to_string().contains("unknown game `chess`"),
        "{error}"
    );
}
