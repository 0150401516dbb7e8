//! `arbiter connect`'s client against a scripted server: what it writes when the game ends
//! in ways a friendly opponent never produces.

use arbiter_server::client::{connect, ConnectOptions};
use arbiter_server::games::GameKind;
use arbiter_server::protocol::{Message, END, MOVE, READY};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

fn options(port: u16) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port,
        colour: "BLACK".into(),
        name: "late".into(),
        room: None,
        game: GameKind::Surakarta,
        size: None,
        player: "random".parse().unwrap(),
        record: None,
        seed: 1,
    }
}

fn line(m: &Message) -> String {
    format!("{}\n", m.to_line())
}

/// The server takes the client's READY, starts the game, waits for the client's first MOVE and
/// answers with END(timeout) counting `plies` moves.
async fn scripted_server(plies: u64) -> (u16, tokio::task::JoinHandle<Message>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read).lines();
        let ready = Message::parse(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(ready.op, READY);
        let start = Message::new(READY, "opponent", "BLACK", "1");
        write.write_all(line(&start).as_bytes()).await.unwrap();
        let mv = Message::parse(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(mv.op, MOVE);
        // Black ran out of time before its move arrived: white wins by TIMEOUT.
        let mut end = Message::new(END, "", "5", "1");
        end.extra.insert("plies".into(), plies.into());
        write.write_all(line(&end).as_bytes()).await.unwrap();
        mv
    });
    (port, task)
}

#[tokio::test]
async fn a_move_sent_after_the_clock_ran_out_is_not_in_the_record() {
    let (port, server) = scripted_server(0).await;
    let outcome = connect(&options(port)).await.unwrap();
    server.await.unwrap();
    assert_eq!(outcome.record, "T#");
}

#[tokio::test]
async fn a_counted_move_stays_in_the_record() {
    let (port, server) = scripted_server(1).await;
    let outcome = connect(&options(port)).await.unwrap();
    let mv = server.await.unwrap();
    assert_eq!(outcome.record, format!("{}-{} T#", mv.data1, mv.data2));
}
