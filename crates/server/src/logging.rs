//! Logging to stderr and a file through bounded queues, so a slow disk never stalls a game.

use std::path::Path;
use std::time::Duration;

/// Why logging cannot start.
#[derive(Debug, thiserror::Error)]
pub enum LoggingError {
    #[error("cannot open the log {path}: {source}")]
    Open {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start logging: {0}")]
    Start(#[source] tracing_subscriber::util::TryInitError),
}

/// Keeps the log writers' background threads alive; drop it last (it flushes what is queued).
pub struct LogGuards(#[allow(dead_code)] Vec<tracing_appender::non_blocking::WorkerGuard>);

/// Logs to stderr and, with `log_file`, to that file too. Lines are handed to writer threads
/// through bounded queues: when a writer falls behind (a full disk, a stderr pipe nobody reads)
/// lines are dropped and counted rather than the game loop waiting, and the count is logged.
pub fn init_logging(log_file: Option<&Path>) -> Result<LogGuards, LoggingError> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let filter =
        || tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let mut counters = Vec::new();
    let mut writer = |w| {
        let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
            .lossy(true)
            .buffered_lines_limit(LOG_QUEUE)
            .finish(w);
        counters.push(writer.error_counter());
        (writer, guard)
    };
    let (stderr_writer, stderr_guard) =
        writer(Box::new(std::io::stderr()) as Box<dyn std::io::Write + Send>);
    // Colours only for a person at a terminal, never in a redirected file or pipe.
    let stderr = tracing_subscriber::fmt::layer()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(stderr_writer)
        .with_filter(filter());
    let mut guards = vec![stderr_guard];
    let file_layer = match log_file {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|source| LoggingError::Open {
                    path: path.to_path_buf(),
                    source,
                })?;
            let (file_writer, guard) = writer(Box::new(file));
            guards.push(guard);
            Some(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(file_writer)
                    .with_filter(filter()),
            )
        }
        None => None,
    };
    tracing_subscriber::registry()
        .with(stderr)
        .with(file_layer)
        .try_init()
        .map_err(LoggingError::Start)?;
    report_dropped_lines(counters);
    Ok(LogGuards(guards))
}

/// Lines each log writer may have queued before new ones are dropped.
const LOG_QUEUE: usize = 64 * 1024;

/// Says now and then how many log lines were dropped because a writer fell behind.
fn report_dropped_lines(counters: Vec<tracing_appender::non_blocking::ErrorCounter>) {
    let _ = std::thread::Builder::new()
        .name("arbiter-log-count".into())
        .spawn(move || {
            let mut reported = 0;
            loop {
                std::thread::sleep(Duration::from_secs(10));
                let dropped: usize = counters.iter().map(|c| c.dropped_lines()).sum();
                if dropped > reported {
                    tracing::warn!(
                        "{} log lines dropped so far ({} in the last 10 s): a log writer falls behind",
                        dropped,
                        dropped - reported
                    );
                    reported = dropped;
                }
            }
        });
}
