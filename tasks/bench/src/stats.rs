//! Statistics over run times: median, geometric mean, Kiln/peer ratios, and the
//! thresholds `check` applies to a fresh run against the last recorded one.

/// Median of the samples (mean of the two middle ones for an even count); `None` when empty.
///
/// ```text
/// median(&[3.0, 1.0, 2.0]) == Some(2.0)
/// ```
pub fn median(samples: &[f64]) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    })
}

/// Smallest and largest sample.
pub fn min_max(samples: &[f64]) -> Option<(f64, f64)> {
    let min = samples.iter().copied().reduce(f64::min)?;
    let max = samples.iter().copied().reduce(f64::max)?;
    Some((min, max))
}

/// Geometric mean of positive values; `None` when empty or when any value is not positive.
pub fn geomean(values: &[f64]) -> Option<f64> {
    if values.is_empty()
        || values
            .iter()
            .any(|v| v.is_nan() || *v <= 0.0 || v.is_infinite())
    {
        return None;
    }
    let log_sum: f64 = values.iter().map(|v| v.ln()).sum();
    Some((log_sum / values.len() as f64).exp())
}

/// Kiln's time over the peer's: above 1 Kiln is slower, below 1 Kiln is faster.
pub fn ratio(kiln: f64, peer: f64) -> Option<f64> {
    (kiln > 0.0 && peer > 0.0).then(|| kiln / peer)
}

/// A fixture is flagged when its fresh median is more than this fraction slower.
pub const FIXTURE_SLOWDOWN: f64 = 0.08;
/// The whole run is flagged when the geomean of fresh/recorded is more than this fraction slower.
pub const GEOMEAN_SLOWDOWN: f64 = 0.03;

/// One fixture's fresh median against its recorded median.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub fixture: String,
    pub recorded_ms: f64,
    pub fresh_ms: f64,
}

impl Change {
    /// fresh / recorded: 1.10 means 10 % slower.
    pub fn factor(&self) -> f64 {
        self.fresh_ms / self.recorded_ms
    }
    pub fn is_regression(&self) -> bool {
        self.factor() > 1.0 + FIXTURE_SLOWDOWN
    }
}

/// What `check` found: the fixtures past the per-fixture threshold, and the geomean factor.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub slower: Vec<Change>,
    pub geomean_factor: Option<f64>,
}

impl Verdict {
    pub fn geomean_regressed(&self) -> bool {
        self.geomean_factor
            .is_some_and(|g| g > 1.0 + GEOMEAN_SLOWDOWN)
    }
    pub fn passed(&self) -> bool {
        self.slower.is_empty() && !self.geomean_regressed()
    }
}

/// Applies the thresholds to the fixtures measured both times.
pub fn judge(changes: &[Change]) -> Verdict {
    let factors: Vec<f64> = changes.iter().map(Change::factor).collect();
    Verdict {
        slower: changes
            .iter()
            .filter(|c| c.is_regression())
            .cloned()
            .collect(),
        geomean_factor: geomean(&factors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn min_and_max() {
        assert_eq!(min_max(&[2.0, 5.0, 1.0]), Some((1.0, 5.0)));
        assert_eq!(min_max(&[]), None);
    }

    #[test]
    fn geomean_of_ratios() {
        assert!(close(geomean(&[2.0, 8.0]).unwrap(), 4.0));
        assert!(close(geomean(&[0.5, 2.0]).unwrap(), 1.0));
        assert!(close(geomean(&[3.0]).unwrap(), 3.0));
        assert_eq!(geomean(&[]), None);
        assert_eq!(geomean(&[1.0, 0.0]), None);
        assert_eq!(geomean(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn ratio_is_kiln_over_peer() {
        assert_eq!(ratio(300.0, 100.0), Some(3.0));
        assert_eq!(ratio(50.0, 100.0), Some(0.5));
        assert_eq!(ratio(50.0, 0.0), None);
    }

    fn change(fixture: &str, recorded_ms: f64, fresh_ms: f64) -> Change {
        Change {
            fixture: fixture.into(),
            recorded_ms,
            fresh_ms,
        }
    }

    #[test]
    fn fixture_threshold_is_eight_percent() {
        assert!(!change("a", 100.0, 108.0).is_regression());
        assert!(change("a", 100.0, 108.5).is_regression());
        assert!(!change("a", 100.0, 50.0).is_regression());
    }

    #[test]
    fn geomean_threshold_is_three_percent() {
        // Each fixture 5 % slower: none past 8 %, but the geomean is past 3 %.
        let verdict = judge(&[change("a", 100.0, 105.0), change("b", 200.0, 210.0)]);
        assert!(verdict.slower.is_empty());
        assert!(verdict.geomean_regressed());
        assert!(!verdict.passed());

        // One 10 % slower, one 10 % faster: the fixture is flagged, the geomean is not.
        let verdict = judge(&[change("a", 100.0, 110.0), change("b", 100.0, 90.0)]);
        assert_eq!(verdict.slower.len(), 1);
        assert_eq!(verdict.slower[0].fixture, "a");
        assert!(!verdict.geomean_regressed());

        let verdict = judge(&[change("a", 100.0, 102.0), change("b", 100.0, 101.0)]);
        assert!(verdict.passed());
    }
}
