//! Message aggregation: messages of one session arriving within the delay become one turn.
//! The first message's task waits for the window to go quiet, then takes the merged batch.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::message::Segment;

struct Pending {
    segments: Vec<Segment>,
    deadline: Instant,
    count: usize,
}

#[derive(Default)]
pub struct Aggregator {
    pending: Mutex<HashMap<String, Pending>>,
}

impl Aggregator {
    /// Adds a message; true when this caller leads the batch (and must call `collect`).
    pub fn add(&self, key: &str, segments: Vec<Segment>, delay: Duration) -> bool {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        match pending.get_mut(key) {
            Some(batch) => {
                batch.segments.push(Segment::plain("\n"));
                batch.segments.extend(segments);
                batch.deadline = Instant::now() + delay;
                batch.count += 1;
                false
            }
            None => {
                pending.insert(
                    key.to_string(),
                    Pending {
                        segments,
                        deadline: Instant::now() + delay,
                        count: 1,
                    },
                );
                true
            }
        }
    }

    /// Waits until no message arrived for `delay`, then takes the batch (segments, count).
    pub async fn collect(&self, key: &str) -> (Vec<Segment>, usize) {
        loop {
            let deadline = {
                let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
                pending.get(key).map(|b| b.deadline)
            };
            match deadline {
                Some(d) if d > Instant::now() => tokio::time::sleep_until(d.into()).await,
                _ => {
                    let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
                    let batch = pending.remove(key);
                    return batch.map(|b| (b.segments, b.count)).unwrap_or_default();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn messages_within_the_window_merge() {
        let agg = Aggregator::default();
        let delay = Duration::from_millis(50);
        assert!(agg.add("s", vec![Segment::plain("a")], delay));
        assert!(!agg.add("s", vec![Segment::plain("b")], delay));
        assert!(agg.add("other", vec![Segment::plain("x")], delay));
        let (segments, count) = agg.collect("s").await;
        assert_eq!(count, 2);
        assert_eq!(super::super::message::plain_text(&segments), "a\nb");
        assert!(
            agg.add("s", vec![Segment::plain("c")], delay),
            "a new batch starts after collect"
        );
    }
}
