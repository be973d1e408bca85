//! Tile timelines (`--binning-policy ...xtimeline`): what the tiles of one binning pass did
//! when, from the words each tile's invocation 0 wrote (glsl/sort/binning.glsl, stamp). They
//! answer two questions the phase clocks cannot: whether the tiles of the whole GPU go through
//! a phase together (the count of tiles in it swings over time, so its memory traffic comes in
//! bursts), and whether the two workgroups sharing an SM are in the same phase at the same
//! time more often than chance would have them. The look-back phase is split at the end of the
//! tile's last bucket walk: the walks, then the wait at the look-back's barrier.

use crate::prims::binning::{TIMELINE_POINTS, TIMELINE_WORDS};

/// One phase (from one point of a tile's timeline to the next it reached) over a pass's tiles.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseSummary {
    /// "ranked -> staged": the points that bound it.
    pub phase: String,
    /// Mean duration, microseconds of the device clock (whose ticks are taken as nanoseconds,
    /// as NVIDIA's are).
    pub mean_us: f64,
    /// Tiles in the phase at once, averaged over the middle 80% of the pass.
    pub tiles_at_once: f64,
    /// The coefficient of variation of that count over 200 time bins of the middle 80%: near 0
    /// for a steady stream, large where the tiles go through the phase in waves.
    pub burstiness: f64,
    /// Time two tiles on one SM were both in the phase, over what chance would give (their
    /// common time times each tile's share of its own time in the phase): 1 independent, above
    /// 1 in step, below 1 out of step. SM clocks; NaN where no two tiles of an SM overlapped.
    pub same_sm_in_step: f64,
}

/// A pass's tile timelines, summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineSummary {
    pub tiles: usize,
    /// From the first tile's start to the last tile's end, microseconds.
    pub span_us: f64,
    /// Tiles running at once, on average over the whole span.
    pub resident: f64,
    pub phases: Vec<PhaseSummary>,
}

/// A phase's bounds in one tile: device clock (ns), SM clock (cycles); None where the tile
/// has no such phase.
type PhaseSpan = Option<((f64, f64), (f64, f64))>;

struct Tile {
    sm: u32,
    /// Device-clock times of the points reached (ns, from the pass's reference), in order.
    device: Vec<(usize, f64)>,
    /// Device-clock time its last bucket walk ended (None: no walk, as tile 0).
    walked: Option<f64>,
    /// SM-clock times of the same points (cycles, from the SM's reference).
    clock: Vec<f64>,
}

/// A pass's tiles from their words, device times from the first tile's start; and the span
/// (ns) from there to the last tile's end. None where no tile reached its end.
fn parse(words: &[u32]) -> Option<(Vec<Tile>, f64)> {
    let stamps = TIMELINE_POINTS.len();
    // A tile's words: SM, the device clock at each point (0: not reached), the SM clock at each.
    let raw: Vec<&[u32]> = words.chunks_exact(TIMELINE_WORDS).filter(|t| t[1] != 0 && t[stamps] != 0).collect();
    let first = raw.first()?;
    // The clocks' low words wrap (the device clock every 4.3 s, an SM clock every 2 s or so): a
    // pass is far shorter, so each time is taken as a signed offset from a reference.
    let rel = |w: u32, r: u32| w.wrapping_sub(r) as i32 as f64;
    let dev_ref = first[1];
    let mut sm_ref = std::collections::HashMap::new();
    let mut tiles: Vec<Tile> = raw
        .iter()
        .map(|t| {
            let r = *sm_ref.entry(t[0]).or_insert(t[1 + stamps]);
            let reached: Vec<usize> = (0..stamps).filter(|&k| t[1 + k] != 0).collect();
            Tile {
                sm: t[0],
                device: reached.iter().map(|&k| (k, rel(t[1 + k], dev_ref))).collect(),
                walked: (t[1 + 2 * stamps] != 0).then(|| rel(t[1 + 2 * stamps], dev_ref)),
                clock: reached.iter().map(|&k| rel(t[1 + stamps + k], r)).collect(),
            }
        })
        .collect();
    let start = tiles.iter().map(|t| t.device[0].1).fold(f64::INFINITY, f64::min);
    for t in &mut tiles {
        for p in &mut t.device {
            p.1 -= start;
        }
        if let Some(w) = &mut t.walked {
            *w -= start;
        }
    }
    let end = tiles.iter().map(|t| t.device.last().unwrap().1).fold(0.0, f64::max);
    Some((tiles, end.max(1.0)))
}

/// The phases, as (from, to) points, in the order tiles reach them.
fn phases_of(tiles: &[Tile]) -> Vec<(usize, usize)> {
    let mut names: Vec<(usize, usize)> = Vec::new();
    for t in tiles {
        for w in t.device.windows(2) {
            if !names.contains(&(w[0].0, w[1].0)) {
                names.push((w[0].0, w[1].0));
            }
        }
    }
    names.sort_by_key(|&(a, b)| (b, a));
    names
}
fn phase_name((a, b): (usize, usize)) -> String {
    format!("{} -> {}", TIMELINE_POINTS[a], TIMELINE_POINTS[b])
}

/// Each tile's span of phase (a, b), if it has it: device clock, then SM clock.
fn phase_spans(tiles: &[Tile], (a, b): (usize, usize)) -> Vec<PhaseSpan> {
    tiles
        .iter()
        .map(|t| {
            let i = t.device.windows(2).position(|w| w[0].0 == a && w[1].0 == b)?;
            Some(((t.device[i].1, t.device[i + 1].1), (t.clock[i], t.clock[i + 1])))
        })
        .collect()
}

/// Tiles in a phase over time: `bins` equal bins of [lo, hi) (device ns), each the mean count
/// over its bin.
fn counts(spans: &[PhaseSpan], lo: f64, hi: f64, bins: usize) -> Vec<f64> {
    let width = (hi - lo) / bins as f64;
    let mut out = vec![0.0f64; bins];
    for &((s, e), _) in spans.iter().flatten() {
        let (s, e) = (s.max(lo), e.min(hi));
        if e <= s || width <= 0.0 {
            continue;
        }
        let (first, last) = (((s - lo) / width) as usize, (((e - lo) / width) as usize).min(bins - 1));
        for (k, bin) in out.iter_mut().enumerate().take(last + 1).skip(first) {
            let (bs, be) = (lo + k as f64 * width, lo + (k + 1) as f64 * width);
            *bin += (e.min(be) - s.max(bs)).max(0.0) / width;
        }
    }
    out
}

/// `words`: [`TIMELINE_WORDS`] a tile, as [`crate::prims::binning::tile_timeline`] returns them.
/// None where no tile reached its end (no timeline recorded).
pub fn summarise(words: &[u32]) -> Option<TimelineSummary> {
    let (tiles, span) = parse(words)?;
    let resident = tiles.iter().map(|t| t.device.last().unwrap().1 - t.device[0].1).sum::<f64>() / span;
    const BINS: usize = 200;
    let summary = |name: String, spans: &[PhaseSpan], same_sm_in_step: f64| {
        let durations: Vec<f64> = spans.iter().flatten().map(|s| s.0 .1 - s.0 .0).collect();
        let mean_us = durations.iter().sum::<f64>() / durations.len().max(1) as f64 * 1e-3;
        let bins = counts(spans, 0.1 * span, 0.9 * span, BINS);
        let mean = bins.iter().sum::<f64>() / BINS as f64;
        let var = bins.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / BINS as f64;
        let burstiness = if mean > 0.0 { var.sqrt() / mean } else { 0.0 };
        PhaseSummary { phase: name, mean_us, tiles_at_once: mean, burstiness, same_sm_in_step }
    };
    let mut phases = Vec::new();
    for phase in phases_of(&tiles) {
        let spans = phase_spans(&tiles, phase);
        phases.push(summary(phase_name(phase), &spans, in_step(&tiles, &spans)));
        if phase == LOOK_BACK && tiles.iter().any(|t| t.walked.is_some()) {
            // Split at the last walk's end (device clock only, so no in-step ratio): the tiles
            // that walked.
            let split = |first: bool| -> Vec<PhaseSpan> {
                spans
                    .iter()
                    .zip(&tiles)
                    .map(|(s, t)| {
                        let ((a, b), c) = (*s)?;
                        let w = t.walked?.clamp(a, b);
                        Some((if first { (a, w) } else { (w, b) }, c))
                    })
                    .collect()
            };
            phases.push(summary("staged -> last walk ended".into(), &split(true), f64::NAN));
            phases.push(summary("last walk ended -> looked back".into(), &split(false), f64::NAN));
        }
    }
    Some(TimelineSummary { tiles: tiles.len(), span_us: span * 1e-3, resident, phases })
}

/// The look-back phase's points: staged -> looked back.
const LOOK_BACK: (usize, usize) = (4, 5);

/// For a plot: the pass's span (microseconds) and, per phase, the tiles in it over `bins`
/// equal bins of the whole span.
pub fn occupancy(words: &[u32], bins: usize) -> Option<(f64, Vec<(String, Vec<f64>)>)> {
    let (tiles, span) = parse(words)?;
    let out = phases_of(&tiles).into_iter().map(|phase| (phase_name(phase), counts(&phase_spans(&tiles, phase), 0.0, span, bins))).collect();
    Some((span * 1e-3, out))
}

/// [`PhaseSummary::same_sm_in_step`] for one phase: `spans[i]` is tile i's phase, if it has it
/// (its SM-clock bounds are the second pair).
fn in_step(tiles: &[Tile], spans: &[PhaseSpan]) -> f64 {
    let overlap = |a: (f64, f64), b: (f64, f64)| (a.1.min(b.1) - a.0.max(b.0)).max(0.0);
    let life = |t: &Tile| (t.clock[0], *t.clock.last().unwrap());
    // A tile's share of its own time in the phase.
    let share = |p: Option<(f64, f64)>, l: (f64, f64)| p.map_or(0.0, |p| (p.1 - p.0) / (l.1 - l.0).max(1.0));
    let mut by_sm: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (i, t) in tiles.iter().enumerate() {
        by_sm.entry(t.sm).or_default().push(i);
    }
    let (mut seen, mut chance) = (0.0, 0.0);
    for members in by_sm.values_mut() {
        members.sort_by(|&a, &b| life(&tiles[a]).0.total_cmp(&life(&tiles[b]).0));
        for (x, &i) in members.iter().enumerate() {
            for &j in &members[x + 1..] {
                let (li, lj) = (life(&tiles[i]), life(&tiles[j]));
                if lj.0 >= li.1 {
                    break; // sorted by start: no later tile of the SM overlaps tile i either
                }
                let common = (li.0.max(lj.0), li.1.min(lj.1));
                let w = common.1 - common.0;
                if w <= 0.0 {
                    continue;
                }
                let (pi, pj) = (spans[i].map(|s| s.1), spans[j].map(|s| s.1));
                seen += match (pi, pj) {
                    (Some(a), Some(b)) => overlap((a.0.max(b.0), a.1.min(b.1)), common),
                    _ => 0.0,
                };
                chance += w * share(pi, li) * share(pj, lj);
            }
        }
    }
    if chance > 0.0 { seen / chance } else { f64::NAN }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words of a tile on `sm` whose points 0..9 fall at `times` (both clocks alike, offset by
    /// `base`, which may wrap); a point at None is not reached.
    fn tile(sm: u32, base: u32, times: &[Option<u32>; 9]) -> Vec<u32> {
        let mut w = vec![0u32; TIMELINE_WORDS];
        w[0] = sm;
        for (k, t) in times.iter().enumerate() {
            if let Some(t) = t {
                w[1 + k] = base.wrapping_add(*t);
                w[10 + k] = base.wrapping_add(*t);
            }
        }
        w
    }
    /// A keys-only tile (no value points) of two equal halves: start..looked back, looked
    /// back..end, starting at `at`, 1000 ticks long.
    fn two_phase(sm: u32, base: u32, at: u32) -> Vec<u32> {
        let p = |d: u32| Some(at + d);
        tile(sm, base, &[p(0), p(100), p(200), p(300), p(400), p(500), None, None, p(1000)])
    }

    #[test]
    fn tiles_in_step_and_out_of_step() {
        // Two SMs, two workgroups each, tiles back to back: in step (both start together) or
        // half a tile apart. The clock words wrap in the middle of the pass.
        let base = u32::MAX - 5000;
        let mut together = Vec::new();
        let mut apart = Vec::new();
        for round in 0..20u32 {
            for sm in 0..2 {
                for slot in 0..2u32 {
                    together.extend(two_phase(sm, base, 1000 * round));
                    apart.extend(two_phase(sm, base, 1000 * round + 500 * slot));
                }
            }
        }
        let t = summarise(&together).unwrap();
        let a = summarise(&apart).unwrap();
        assert_eq!(t.tiles, 80);
        assert!((t.span_us - 20.0).abs() < 1e-9, "{}", t.span_us);
        assert!((t.resident - 4.0).abs() < 1e-9, "{}", t.resident);
        // Phases: five of 100 ticks, then looked back -> end (500).
        let names: Vec<&str> = t.phases.iter().map(|p| p.phase.as_str()).collect();
        assert_eq!(names, ["start -> loaded", "loaded -> counted", "counted -> ranked", "ranked -> staged", "staged -> looked back", "looked back -> end"]);
        let last = t.phases.last().unwrap();
        assert!((last.mean_us - 0.5).abs() < 1e-9);
        assert!((last.tiles_at_once - 2.0).abs() < 0.05, "{}", last.tiles_at_once);
        // In step: both tiles of an SM always in the same phase (chance: half the time for the
        // long phase, a tenth for the short ones); half a tile apart, never.
        assert!((last.same_sm_in_step - 2.0).abs() < 1e-9, "{}", last.same_sm_in_step);
        assert!((t.phases[0].same_sm_in_step - 10.0).abs() < 1e-9, "{}", t.phases[0].same_sm_in_step);
        for p in &a.phases {
            assert!(p.same_sm_in_step < 1e-9, "{p:?}");
        }
        // In step the whole GPU's count of tiles in a phase swings (4 or 0 for the long phase);
        // out of step it holds at 2.
        assert!(last.burstiness > 0.9, "{}", last.burstiness);
        let steady = a.phases.last().unwrap();
        assert!(steady.burstiness < 0.05 && (steady.tiles_at_once - 2.0).abs() < 0.05, "{steady:?}");
    }

    #[test]
    fn look_back_split_at_the_last_walk() {
        // The look-back phase (staged at 400, looked back at 500) split where the last walk
        // ended: at 470 in every tile but the first, which did not walk.
        let words: Vec<u32> = (0..10u32)
            .flat_map(|r| {
                let mut w = two_phase(r % 2, 7, 1000 * r);
                if r > 0 {
                    w[TIMELINE_WORDS - 1] = 7 + 1000 * r + 470;
                }
                w
            })
            .collect();
        let s = summarise(&words).unwrap();
        let names: Vec<&str> = s.phases.iter().map(|p| p.phase.as_str()).collect();
        assert_eq!(names[4..7], ["staged -> looked back", "staged -> last walk ended", "last walk ended -> looked back"]);
        assert!((s.phases[4].mean_us - 0.1).abs() < 1e-9);
        assert!((s.phases[5].mean_us - 0.07).abs() < 1e-9, "{:?}", s.phases[5]);
        assert!((s.phases[6].mean_us - 0.03).abs() < 1e-9, "{:?}", s.phases[6]);
        assert!(s.phases[5].same_sm_in_step.is_nan());
    }

    #[test]
    fn occupancy_over_the_whole_pass() {
        // Four tiles at once, in step, ten rounds: the long phase holds 4 tiles in the second
        // half of each round's 1,000 ticks and none in the first.
        let words: Vec<u32> = (0..10u32).flat_map(|r| (0..4).flat_map(move |sm| two_phase(sm, 3, 1000 * r))).collect();
        let (span_us, phases) = occupancy(&words, 20).unwrap();
        assert!((span_us - 10.0).abs() < 1e-9);
        let (name, c) = phases.last().unwrap();
        assert_eq!(name, "looked back -> end");
        for (k, v) in c.iter().enumerate() {
            assert!((v - if k % 2 == 1 { 4.0 } else { 0.0 }).abs() < 1e-9, "{c:?}");
        }
    }

    #[test]
    fn tiles_without_a_timeline_are_left_out() {
        assert_eq!(summarise(&[]), None);
        assert_eq!(summarise(&vec![0u32; 3 * TIMELINE_WORDS]), None);
        let mut w = two_phase(0, 7, 0);
        w.extend(vec![0u32; TIMELINE_WORDS]);
        let s = summarise(&w).unwrap();
        assert_eq!(s.tiles, 1);
        assert!(s.phases.iter().all(|p| p.same_sm_in_step.is_nan()));
    }
}
