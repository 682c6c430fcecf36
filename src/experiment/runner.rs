//! Running an experiment's points: the points already on disk with the same key are taken
//! from there, the others run on worker threads, each persisted the moment it finishes, and
//! handed to the caller in point order as soon as that order allows.

use super::{Experiment, Point, record};
use crate::engine::run_point_until;
use crate::error::{Error, Result};
use crate::experiment::directory::OutDir;
use crate::stats::PointResult;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How to run an experiment.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Worker threads (0: one per core); the results do not depend on it.
    pub threads: usize,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Rerun every point, ignoring the records on disk.
    pub fresh: bool,
    /// Without a progress bar: report progress on stderr every this many seconds (0: never),
    /// so that a long run without a terminal is never silent.
    pub report_seconds: f64,
}

/// What a run did: the results of the points asked for, in point order, and how many were
/// taken from disk.
pub struct Outcome {
    /// The results of the points asked for, in [`Experiment::points`] order.
    pub results: Vec<PointResult>,
    /// Points whose records were on disk (not simulated again).
    pub reused: usize,
}

/// Results of points as they finish, handed on in point order.
struct InOrder<'a> {
    /// Each point's result once known (indexed as the points asked for).
    slots: Vec<Option<Result<PointResult>>>,
    /// The point index (into [`Experiment::points`]) of each slot.
    wanted: &'a [usize],
    /// The first slot not yet handed on.
    next: usize,
    /// Receives each point, in order.
    on_point: &'a (dyn Fn(usize, &PointResult) + Sync),
}

impl InOrder<'_> {
    /// Hands on every point from `next` whose result is known, stopping at an error.
    fn flush(&mut self) {
        while let Some(Some(Ok(r))) = self.slots.get(self.next) {
            (self.on_point)(self.wanted[self.next], r);
            self.next += 1;
        }
    }
}

/// Runs the points `wanted` (indices into [`Experiment::points`], in order: all of them for a
/// whole run, a shard's for a shard) that are not already recorded in `dir` (all of them with
/// `fresh`), recording each as it finishes; `kept` counts the wanted points on disk (for an
/// interruption's message); `on_point` receives every wanted point (its index and results), in
/// point order, as soon as it and all before it are known. The first error in point order (a
/// deadlock, say) is returned after every point has run; a record that cannot be saved stops
/// the run at once (no point is started, the points running are stopped) and is the error
/// returned, the records saved before it kept.
pub fn run(
    exp: &Experiment,
    dir: &OutDir,
    opts: RunOptions,
    kept: &AtomicUsize,
    on_point: &(dyn Fn(usize, &PointResult) + Sync),
    wanted: &[usize],
) -> Result<Outcome> {
    let all = exp.points();
    let points: Vec<Point> = wanted.iter().map(|&i| all[i]).collect();
    let keys: Vec<(String, String)> = points.iter().map(|&p| exp.key(p)).collect();
    dir.remove_temporaries();
    // One record read at a time: a record's bytes are as large as the results it holds.
    let mut slots: Vec<Option<Result<PointResult>>> = Vec::with_capacity(points.len());
    for (&p, (hash, text)) in points.iter().zip(&keys) {
        let bytes = match opts.fresh {
            true => None,
            false => dir.read_point(hash, record::max_bytes(exp.scenario(p)))?,
        };
        slots.push(bytes.and_then(|b| record::decode(&b, text)).map(Ok));
    }
    let todo_any = slots.iter().any(Option::is_none);
    if todo_any {
        dir.check_store_writable()?;
    }
    let reused = slots.iter().filter(|s| s.is_some()).count();
    kept.store(reused, Ordering::SeqCst);
    let todo: Vec<usize> = (0..points.len()).filter(|&i| slots[i].is_none()).collect();
    let bar = progress_bar(exp, &points, &todo, reused, opts.progress);
    let mut order = InOrder {
        slots: std::mem::take(&mut slots),
        wanted,
        next: 0,
        on_point,
    };
    bar.suspend(|| order.flush());
    let order = Mutex::new(order);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(reused);
    let per_point = todo
        .iter()
        .map(|&i| exp.scenario(points[i]).run.threads_per_point)
        .max()
        .unwrap_or(0);
    let (threads, split) = point_threads(opts.threads, todo.len(), per_point);
    // Set when a record cannot be saved: no point starts after it, the running ones stop.
    let stop = AtomicBool::new(false);
    let unsaved: Mutex<Option<Error>> = Mutex::new(None);
    let worker = || {
        loop {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let j = next.fetch_add(1, Ordering::SeqCst);
            let Some(&i) = todo.get(j) else { break };
            let p = points[i];
            let result = run_one(exp, p, split, &stop).and_then(|r| {
                let saved = dir.save_point(&keys[i].0, &record::encode(&keys[i].1, &r));
                if let Err(e) = saved {
                    stop.store(true, Ordering::SeqCst);
                    let mut first = unsaved.lock().unwrap_or_else(|e| e.into_inner());
                    let e = first.get_or_insert(e);
                    return Err(Error::Io(e.to_string()));
                }
                kept.fetch_add(1, Ordering::SeqCst);
                Ok(r)
            });
            let n = done.fetch_add(1, Ordering::SeqCst) + 1;
            bar.set_message(format!("{}: {n}/{} points", exp.name, points.len()));
            bar.inc(cost_units(exp, p));
            let mut o = order.lock().unwrap_or_else(|e| e.into_inner());
            o.slots[i] = Some(result);
            bar.suspend(|| o.flush());
        }
    };
    let finished = AtomicBool::new(false);
    let unstarted = std::thread::scope(|s| {
        let mut workers = Vec::new();
        let mut failed = None;
        for _ in 0..threads {
            match std::thread::Builder::new().spawn_scoped(s, worker) {
                Ok(w) => workers.push(w),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        if workers.is_empty() {
            return failed;
        }
        if opts.report_seconds > 0.0 && !opts.progress {
            let progress = Progress {
                name: &exp.name,
                points: points.len(),
                done: &done,
                finished: &finished,
                every: opts.report_seconds,
            };
            // The reports are a help, not the run: a thread that cannot start leaves it silent.
            let _ = std::thread::Builder::new().spawn_scoped(s, move || progress.report());
        }
        for w in workers {
            let _ = w.join();
        }
        finished.store(true, Ordering::SeqCst);
        None
    });
    if let Some(e) = unstarted {
        return Err(Error::Io(format!(
            "cannot start a thread to run the points ({e}); fix: fewer --threads, or raise the limits on processes and memory (ulimit -u, ulimit -v)"
        )));
    }
    bar.finish_and_clear();
    if let Some(e) = unsaved.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let order = order.into_inner().unwrap_or_else(|e| e.into_inner());
    let results = order
        .slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| Err(Error::Io("a point did not run".into()))))
        .collect::<Result<Vec<_>>>()?;
    Ok(Outcome { results, reused })
}

/// A run's progress, reported on stderr every so often while its points run (without a
/// terminal), so that a long run is never silent.
struct Progress<'a> {
    /// The experiment's name.
    name: &'a str,
    /// The points asked for.
    points: usize,
    /// The points done so far.
    done: &'a AtomicUsize,
    /// Set when every point is done.
    finished: &'a AtomicBool,
    /// Seconds between reports.
    every: f64,
}

impl Progress<'_> {
    /// Reports the points done and the cycles simulated every `every` seconds until the run
    /// is finished.
    fn report(self) {
        let started = std::time::Instant::now();
        let cycles0 = crate::engine::SIMULATED.load(Ordering::Relaxed);
        let mut last = started;
        while !self.finished.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(50));
            if last.elapsed().as_secs_f64() >= self.every {
                last = std::time::Instant::now();
                let cycles = crate::engine::SIMULATED.load(Ordering::Relaxed) - cycles0;
                eprintln!(
                    "flitsim: {}: {}/{} points done, {cycles} cycles simulated, {} s",
                    self.name,
                    self.done.load(Ordering::SeqCst),
                    self.points,
                    started.elapsed().as_secs()
                );
            }
        }
    }
}

/// The worker threads for `points` points: `asked` (0: one per core), never more than the
/// points nor the machine's cores (a point runs on one thread, so more would only wait).
pub fn worker_threads(asked: usize, points: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let wanted = if asked == 0 { cores } else { asked };
    wanted.min(cores).min(points.max(1))
}

/// The worker threads for `points` points, and the threads free for each point's cycle when
/// its scenario leaves its count to the run (the point takes [`crate::engine::auto_threads`]
/// of them, by its network's size). With `[run] threads_per_point` (its largest, `per_point`)
/// set, as many workers as the cores (or `asked`) hold points of that many threads; else one
/// point per worker, and when the points are fewer than the cores (or `asked`), the threads
/// left over are shared among them.
pub fn point_threads(asked: usize, points: usize, per_point: usize) -> (usize, usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let budget = if asked == 0 { cores } else { asked.min(cores) };
    if let Some(workers) = budget.checked_div(per_point) {
        return (workers.clamp(1, points.max(1)), per_point);
    }
    let workers = worker_threads(asked, points);
    (workers, (budget / workers).max(1))
}

/// Simulates one point, with its load as the scenario gave it, its cycle split across up to
/// `split` threads, until it ends or `stop` is set.
fn run_one(exp: &Experiment, p: Point, split: usize, stop: &AtomicBool) -> Result<PointResult> {
    let mut r = run_point_until(exp.scenario(p), exp.rate(p), p.seed, split, stop)?;
    r.given_flit_rate = exp.given_flit_rate(p);
    Ok(r)
}

/// A point's estimated cost in the progress bar's units.
fn cost_units(exp: &Experiment, p: Point) -> u64 {
    (exp.cost(p) / 1000.0).ceil().max(1.0) as u64
}

/// A bar over the cost of the points to run: its ETA follows their cycles and sizes, not their
/// count.
fn progress_bar(
    exp: &Experiment,
    points: &[Point],
    todo: &[usize],
    reused: usize,
    show: bool,
) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let total: u64 = todo.iter().map(|&i| cost_units(exp, points[i])).sum();
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {elapsed_precise} elapsed, ETA {eta}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_message(format!("{}: {reused}/{} points", exp.name, points.len()));
    bar
}

#[cfg(test)]
mod tests {
    use super::{point_threads, worker_threads};

    #[test]
    fn points_fewer_than_cores_share_the_threads_left() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // One point: every core it may use.
        assert_eq!(point_threads(0, 1, 0), (1, cores));
        assert_eq!(point_threads(1, 1, 0), (1, 1));
        // Many points: one per core, each on one thread.
        assert_eq!(point_threads(0, 1_000, 0), (cores, 1));
        // `threads_per_point` set: as many such points at once as the cores hold, at least one.
        assert_eq!(point_threads(0, 1_000, 2), ((cores / 2).max(1), 2));
        assert_eq!(point_threads(1, 1_000, 3), (1, 3));
        assert_eq!(point_threads(0, 0, 2), (1, 2));
    }

    #[test]
    fn threads_are_capped_by_points_and_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(worker_threads(100_000, 3), cores.min(3));
        assert_eq!(worker_threads(100_000, 1_000_000), cores);
        assert_eq!(worker_threads(0, 1_000_000), cores);
        assert_eq!(worker_threads(1, 50), 1);
        assert_eq!(worker_threads(4, 0), 1);
    }
}
