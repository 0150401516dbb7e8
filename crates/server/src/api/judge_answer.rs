//! The judge visualiser's answer, never larger than its bound: a trace whose JSON would be
//! longer loses its last steps (`"truncated": true`, `"steps_total"` says how many there were);
//! when not even the first step fits beside the judge's output, the request is refused (413).

use serde::Serialize;

use super::views::TraceView;
use super::ApiError;

/// A trace as answered: the trace, and whether its steps were cut to fit the bound.
#[derive(Serialize)]
struct Answer {
    #[serde(flatten)]
    trace: TraceView,
    truncated: bool,
    steps_total: usize,
}

/// The JSON of `trace`, at most `max` bytes long.
pub fn bounded(trace: TraceView, max: usize) -> Result<Vec<u8>, ApiError> {
    let steps_total = trace.steps.len();
    let mut answer = Answer {
        trace,
        truncated: false,
        steps_total,
    };
    loop {
        let body = serde_json::to_vec(&answer)
            .map_err(|e| ApiError::Internal(format!("a trace's JSON: {e}")))?;
        if body.len() <= max {
            return Ok(body);
        }
        if answer.trace.steps.is_empty() {
            return Err(ApiError::AnswerTooLarge { limit: max });
        }
        // Drop steps from the end until as many bytes as the excess are gone (a step's JSON
        // and its comma), then measure again.
        let mut excess = body.len() - max;
        while excess > 0 {
            let Some(step) = answer.trace.steps.pop() else {
                break;
            };
            let size = serde_json::to_vec(&step).map_or(0, |s| s.len()) + 1;
            excess = excess.saturating_sub(size);
        }
        if answer.trace.steps.is_empty() {
            return Err(ApiError::AnswerTooLarge { limit: max });
        }
        answer.truncated = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_trace_is_cut_to_the_bound_and_says_so() {
        let data = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/duck/official/2.in"
        );
        let input = std::fs::read_to_string(data).unwrap();
        let trace = crate::api::views::judge_trace(&arbiter_duck::DEFINITION, &input).unwrap();
        let whole = bounded(trace.clone(), usize::MAX).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&whole).unwrap();
        assert_eq!(value["truncated"], false);
        let max = whole.len() - 10;
        let cut = bounded(trace.clone(), max).unwrap();
        assert!(cut.len() <= max);
        let cut: serde_json::Value = serde_json::from_slice(&cut).unwrap();
        assert_eq!(cut["truncated"], true);
        assert_eq!(cut["steps_total"], trace.steps.len());
        // Not even the first step fits beside the output: refused.
        let first = serde_json::to_vec(&trace.steps[0]).unwrap().len();
        let bare = whole.len() - value["steps"].to_string().len() + 2;
        assert!(matches!(
            bounded(trace, bare + first / 2),
            Err(ApiError::AnswerTooLarge { .. })
        ));
    }
}
