//! The command line's definition (clap): every command, argument and flag with its help.
//!
//! It lives in the library, not in the binary, so that [`crate::reference`] can walk it to write
//! the book's command reference and a test can check that every argument has a description; the
//! binary (`src/main.rs`) parses with it and dispatches. Its doc comments are the `--help`
//! text, written for a terminal: rustdoc's link and HTML rules do not apply to them.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// `flitsim --version`: the crate's version and the git revision it was built from.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (git ",
    env!("FLITSIM_GIT_REVISION"),
    ")"
);

/// The whole command line.
#[derive(Parser)]
#[command(
    name = "flitsim",
    version = VERSION,
    about = "Flit-level simulator of wormhole-switched networks"
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// flitsim's commands.
#[derive(Subcommand)]
pub enum Command {
    /// Run a scenario's sweep and write CSVs to results/<name>/ (or --out).
    ///
    /// Runs every configuration of the scenario's sweep, at every load, with every seed, printing
    /// each point's line as it finishes, in point order. Without a terminal and unless --quiet,
    /// it also reports on stderr every 60 seconds (or every FLITSIM_REPORT_SECONDS) the points
    /// done and the cycles simulated so far, so that a long point is never silent; on a terminal
    /// it shows a progress bar with an ETA weighted by each point's cycles and network size.
    ///
    /// Results go to results/<name>/ unless --out. The points already in that directory are
    /// kept, not rerun, unless --fresh; a directory of another experiment is refused unless
    /// --replace. --threads (default: one per core; never more than the points or the cores;
    /// clearing a large network's arrays and making the large tables' rows use as many) never
    /// changes the results.
    ///
    /// With --shard I/N it runs only the I-th of N shares of the points into the directory (its
    /// records, scenario.toml and experiment.json; no tables): the shares are deterministic and
    /// balanced by estimated cost (cycles x network size x load, longest first to the
    /// least-loaded share), with the same records and resumption as a whole run. N is at most
    /// the experiment's points: a larger N is refused at once naming both counts (exit 2),
    /// before the directory is opened. `flitsim merge` assembles the shares.
    Run(RunArgs),
    /// Validate a scenario (every configuration of its sweep) and describe its network, its
    /// points and their cycles, without running it.
    ///
    /// Prints the network the first configuration builds (nodes, links, diameter, mean
    /// distance), its router (with any timing option set) and routing (on a torus, the tie and
    /// dateline rules in force), the sweep, the number of points and their most simulated
    /// cycles, a point's estimated memory and the memory limit in force, and the expected run
    /// time. The run time comes from a quick calibration: the first configuration's engine at
    /// its highest load stepped for 0.2 s, each point's cycles scaled by its network's size,
    /// shared by the threads; it is within a factor of 2 on the scenarios tried.
    ///
    /// It also prints each configuration's throughput bound, with the channels that set it: the
    /// offered load (flits/node/cycle) above which some channel would have to carry more than
    /// one flit per cycle. The bound is the lowest of: the busiest link, where flitsim has the
    /// channel rates exactly (as validate does: dimension-order routing by enumeration, p-cube
    /// and Duato by the papers' closed forms); the average link of each dimension, and of each
    /// way along it (of an m-way network, the average m-way channel), since every routing
    /// flitsim has is minimal (in closed form under uniform traffic, otherwise by enumeration of
    /// the source-destination pairs on up to 4096 nodes); under uniform traffic the links across
    /// the middle of each dimension (the bisection: 4(N - 1)/(kN) on a mesh of even radix k,
    /// 8(N - 1)/(kN) on a bidirectional torus); the hot node's ejection channel under a
    /// hotspot; and the injection channel (1). Saturation cannot lie above it.
    Check {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Scenario key overrides.
        #[command(flatten)]
        sets: SetArgs,
        /// Accept a scenario whose points would not fit in the memory available.
        #[arg(long)]
        force: bool,
    },
    /// The built network's properties (processors, routers, channels, degree, diameter,
    /// mean distance), as a table or, with --csv, as property,value rows.
    ///
    /// Describes the first configuration's network in the terms of paper 004's Fig. 3:
    /// topology, radix, dimensions, links, processors, routers, channels (unidirectional network
    /// links), degree (network links leaving a router, at most), diameter and mean distance
    /// under uniform traffic.
    ///
    /// For an m-way network: topology, radix, dimensions, processors_on, m (the most ways of a
    /// channel), processors, routers, channels (m-way channels), degree (2), diameter and mean
    /// distance in channel crossings (paper 004's measure), and mean_hops (routers passed, the
    /// hops of the outputs).
    Info {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Print property,value rows (CSV) instead of a table.
        #[arg(long)]
        csv: bool,
        /// Scenario key overrides.
        #[command(flatten)]
        sets: SetArgs,
    },
    /// Draw latency, throughput, latency std dev and traffic plots (SVG, PNG or PDF), one curve
    /// per configuration, from results directories (pooled.csv when there are replications).
    ///
    /// Draws latency.svg (mean latency with its 95% confidence interval against offered load;
    /// saturated points left out), throughput.svg (accepted against offered load),
    /// latency_std.svg (latency standard deviation; saturated points left out) and traffic.svg
    /// (mean channel traffic, % of cycles), one curve per configuration; from one directory
    /// also latency_hist.svg (histogram.csv: each configuration's latency distribution, a
    /// panel each, a curve per load below saturation, as the fraction of messages per cycle of
    /// latency, the seeds pooled, the axis to 10% past the largest 99th percentile) and
    /// heatmap.svg (channels.csv: every network link on the topology's own layout, coloured by
    /// its utilisation in flits/cycle on a 0-to-1 scale, the mean over the seeds; a panel per
    /// configuration at its highest offered load below saturation, its hottest links listed;
    /// none for a network of more than 4,096 links). With --format png or pdf every plot is
    /// written in that format instead.
    ///
    /// Curves are labelled by the swept keys' values only (`duato, V=5, M=64`): router.vcs as
    /// V=, traffic.message_length as M=, router.buffer_depth as depth=,
    /// traffic.pattern_fraction as x=, traffic.hotspot_fraction as h=, routing.timeout as τ=,
    /// strings bare, other keys as key=value. With several seeds it plots pooled.csv: the mean
    /// over the seeds, with the 95% half-widths across replications as error bars (latency and
    /// throughput). The legend is drawn beside the plotting area, never over the data; colours
    /// are Okabe and Ito's colour-blind-safe palette without its yellow. A curve's colour
    /// follows the first swept key's value (the directory's with several directories), its line
    /// style (solid, dashed, dotted) the second's, its marker the others'; with one key or none
    /// the seven colours come first, then the line styles, then the markers.
    ///
    /// With several directories (and --out), each curve's label is prefixed by its directory's:
    /// the scenario name, or its path when two directories share a scenario or folder name (so
    /// out/c-dor and other/c-dor stay two curves), or the --label given for it.
    ///
    /// With --panels KEY (a swept key, e.g. traffic.pattern) each plot has a panel per value of
    /// KEY, side by side in rows of at most three, titled by the key as labels name it and its
    /// value (`pattern = uniform`, `V = 5`), each with its own axes and y range; a panel's curves
    /// are the configurations with that value, labelled by the other swept keys (after the
    /// directory's label with several directories), and a label has the same colour, line
    /// style and marker in every panel, under one legend. A KEY that some directory does not sweep is refused
    /// (exit 2), naming the keys it sweeps.
    Plot {
        /// One results directory, or several to overlay (then give --out).
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// Where to write the plots (default: the one results directory).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The plots' title (before each plot's own words); replaces the common part of the
        /// titles.
        #[arg(long)]
        title: Option<String>,
        /// A directory's label in the legends, one per directory in order (repeatable).
        #[arg(long = "label")]
        labels: Vec<String>,
        /// A swept key (as the tables' columns name it, e.g. traffic.pattern): each plot gets a
        /// panel per value of it, its curves labelled by the other swept keys.
        #[arg(long, value_name = "KEY")]
        panels: Option<String>,
        /// A logarithmic latency axis (latency.svg).
        #[arg(long)]
        log_y: bool,
        /// The offered-load axis' range on every plot, e.g. 0:0.5.
        #[arg(long, value_name = "LO:HI", allow_hyphen_values = true)]
        x_range: Option<String>,
        /// The latency axis' range (latency.svg), e.g. 0:200.
        #[arg(long, value_name = "LO:HI", allow_hyphen_values = true)]
        y_range: Option<String>,
        /// The files' format: svg; png (rendered at twice the SVG's size, with the DejaVu Sans
        /// font flitsim carries, no system font needed); pdf (one page, vector graphics, by
        /// svg2pdf). Every plot is written in it: latency.png, heatmap.pdf and so on.
        #[arg(long, value_name = "FORMAT", default_value = "svg", value_parser = ["svg", "png", "pdf"])]
        format: String,
    },
    /// The analytical model's latency at each load of the scenario, and its saturation load.
    ///
    /// Writes each configuration's model as a table and model.csv: one row per configuration
    /// and load (the model does not depend on the seed) with rate, model_latency,
    /// model_network_latency, model_source_wait, model_vbar, saturated and
    /// model_saturation_rate; NaN past saturation. Exits 2 naming the models there are when
    /// none covers the scenario.
    Model {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Output directory for model.csv (default: results/<scenario name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Scenario key overrides.
        #[command(flatten)]
        sets: SetArgs,
        /// Write into a directory that holds another experiment's results, discarding them.
        #[arg(long)]
        replace: bool,
    },
    /// Simulation and model on the same loads: validation.csv and validation.svg.
    ///
    /// Runs the experiment as run does, and each configuration's model on the same loads: the
    /// run's CSVs, model.csv (as model writes it), validation.csv (one row per point beside its
    /// configuration's and load's model row) and validation.svg (per configuration, the
    /// simulation's and the model's latency against offered load). With several seeds a load's
    /// simulated point is the mean over the seeds, drawn only when every seed's point is shown,
    /// with the 95% half-width across them as its error bar; with one seed, its batch-means 95%
    /// CI.
    ///
    /// A simulated point is compared (shown, and a rel_error) only when it is not saturated and
    /// its standard error by batch means is under 5% of its mean: paper 003's rule.
    ///
    /// Where flitsim has the channel rates exactly (dimension-order routing by enumeration of
    /// every source-destination pair, any pattern; p-cube under uniform traffic by paper 002's
    /// eqs. 20-21; Duato on a unidirectional torus of one radix or a hypercube under uniform
    /// traffic by paper 000 eq. 7; never on k-ary m-way networks, and by enumeration only up to
    /// 4096 nodes) it also writes validation_channels.csv and validation_distance.csv; where the
    /// model gives the occupancy P_v (papers 000 and 001), validation_vc.csv. A scenario with
    /// channel rates but no latency model is validated on those alone. Exits 2 when neither kind
    /// of model covers it.
    Validate(RunArgs),
    /// Write sbatch scripts that run the experiment's shards as a SLURM job array and merge
    /// them (with --submit, submit them).
    ///
    /// Writes OUT/slurm/shards.sbatch (a job array of N tasks, task I running
    /// `flitsim run --shard I/N --threads $SLURM_CPUS_PER_TASK` into OUT/shards/I),
    /// OUT/slurm/shards.list (those N directories, one a line), OUT/slurm/merge.sbatch
    /// (`flitsim merge OUT --dirs-from OUT/slurm/shards.list`) and OUT/slurm/submit.sh (submits
    /// the array, then the merge with --dependency=afterok:<array>), and prints the command that
    /// submits them; --submit runs it (sbatch must be on PATH). Logs go to OUT/slurm/
    /// (shard-<I>.log, merge.log).
    ///
    /// Every value is checked before a script is written: N from 1 to the experiment's points;
    /// C from 1 to 65533; P one SLURM partition name or a comma-separated list of them (letters,
    /// digits, _, -, .); T one of SLURM's --time forms (minutes, minutes:seconds,
    /// hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds, or
    /// UNLIMITED/INFINITE). A control character in any value that reaches a script, a path not
    /// UTF-8, or a backslash in OUT is refused (exit 2). #SBATCH lines hold only those plain
    /// checked words, never a path; paths and --set values appear only single-quoted in bash
    /// lines, so quotes, $(...), backticks, ; or globs in them are data, never commands.
    Slurm(SlurmArgs),
    /// Each configuration's saturation throughput, by bisection on the offered load:
    /// saturation.csv (into results/<name>-saturation unless --out).
    ///
    /// Bisects on the offered load (flits/node/cycle) between 0 and the throughput bound (see
    /// check; at most the injection channel's capacity, 1) until the bracket is narrower than
    /// the tolerance. A load is stable when none of its replications (one per seed) is saturated
    /// by the criterion of summary.csv. The search probes the upper end first (a configuration
    /// stable there saturates at the bound) and prints each probe.
    ///
    /// saturation.csv holds the coordinates, saturation_flits (the last stable offered load),
    /// bracket_lo (the same), bracket_hi (the lowest saturated load probed; equal to bracket_lo
    /// when even the upper end was stable), accepted_flits_at_saturation (mean over the seeds)
    /// and points_run (probes x seeds). Every probe is a point with a record: an interrupted
    /// search resumes.
    Saturation {
        /// The scenario and run options.
        #[command(flatten)]
        run: RunArgs,
        /// Stop when the bracket is narrower than this (flits/node/cycle).
        #[arg(long, default_value_t = 0.005)]
        tolerance: f64,
    },
    /// Assemble the directories of `run --shard I/N` into OUT: the tables of a single run.
    ///
    /// OUT's tables are byte-identical to a single `flitsim run` of the whole scenario, and OUT
    /// holds every point's record (a rerun into it runs nothing); OUT is never one of the shard
    /// directories (refused, exit 2). The directories are those given after OUT, then those
    /// --dirs-from lists.
    ///
    /// A point in none of the directories or in two, or a directory of another experiment
    /// (another scenario, --set or --seed: experiment.json's experiment_hash, a hash of every
    /// point's key), is refused naming them (exit 2); merging again gives the same files.
    Merge {
        /// The output directory.
        out: PathBuf,
        /// The shard directories (those of --dirs-from follow them).
        dirs: Vec<PathBuf>,
        /// A file listing shard directories, one per line as written (spaces included; relative
        /// ones to the current directory); empty lines are skipped. It must be a regular file
        /// of UTF-8 text of at most 16 MiB, not a link or a FIFO, without control characters
        /// (a CRLF file's \r).
        #[arg(long, value_name = "FILE")]
        dirs_from: Option<PathBuf>,
        /// Write into a directory that holds another experiment's results, discarding them.
        #[arg(long)]
        replace: bool,
    },
    /// One self-contained HTML page of results directories: report.html.
    ///
    /// Writes the page into the one results directory as report.html (listed in its manifest
    /// as flitsim's, like plot's plots), or with several directories into --out FILE (then
    /// required). The page holds its CSS, its SVG plots and a small script: it opens from disk
    /// in any browser, with nothing fetched. Its sections, each shown only where its data
    /// exist: provenance (experiment.json, scenario.toml); latency (linear or log axis) and
    /// accepted throughput against offered load (flits/node/cycle), one curve per
    /// configuration from pooled.csv (else summary.csv) with 95% half-widths, saturated points
    /// left out of latency, curves looking as plot draws them, the directories' curves
    /// overlaid; saturation.csv as a table and as marks on the throughput plot; model against
    /// simulation (validation.csv); and per directory, with a load selector, the latency
    /// histogram and CDF with the mean and p50/p95/p99 (histogram.csv), the hop counts against
    /// the exact distance distribution where flitsim enumerates it (hops.csv), and the VC
    /// occupancy against the model's (vc_occupancy.csv, validation_vc.csv). Hovering a point
    /// shows its values; clicking a legend entry hides or shows its curve.
    ///
    /// A path that is not a results directory (no summary.csv, pooled.csv or saturation.csv)
    /// is refused (exit 2). An existing --out FILE is overwritten only when it is a report
    /// flitsim wrote; a report.html in the directory that flitsim did not write is refused,
    /// never overwritten (exit 2).
    Report {
        /// One results directory, or several (then give --out).
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// The HTML file to write (default: report.html in the one results directory).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
}

/// `--set KEY=VALUE`, on every command that reads a scenario.
#[derive(clap::Args)]
pub struct SetArgs {
    /// Override one key of the scenario for this run, e.g. --set router.vcs=8 or
    /// --set traffic.flit_rates=[0.1,0.2]; --set sweep.KEY=[a,b] sweeps a key. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
}

/// Arguments of `flitsim slurm`.
#[derive(clap::Args)]
pub struct SlurmArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Scenario key overrides.
    #[command(flatten)]
    pub sets: SetArgs,
    /// Tasks of the job array: the shards.
    #[arg(long)]
    pub tasks: usize,
    /// SLURM partition.
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit of each task (SLURM's --time, e.g. 2:00:00).
    #[arg(long)]
    pub time: Option<String>,
    /// CPUs per task (each shard runs with --threads $SLURM_CPUS_PER_TASK).
    #[arg(long, default_value_t = 1)]
    pub cpus: usize,
    /// Output directory of the merged results (default: results/<name>); the shards go to
    /// OUT/shards/I and the scripts and logs to OUT/slurm/.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write into a directory that holds another experiment's results, discarding them when
    /// the merge publishes its own.
    #[arg(long)]
    pub replace: bool,
    /// Submit the scripts with sbatch.
    #[arg(long)]
    pub submit: bool,
}

/// Arguments of the commands that simulate a scenario.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Scenario key overrides.
    #[command(flatten)]
    pub sets: SetArgs,
    /// Rerun every point, even those whose results are already in the output directory.
    #[arg(long)]
    pub fresh: bool,
    /// Run even if the points would not fit in the memory available (estimated).
    #[arg(long)]
    pub force: bool,
    /// Run only the I-th of N shares of the points (balanced by estimated cost), for
    /// `flitsim merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Output directory (default: results/<scenario name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write into a directory that holds another experiment's results (or files flitsim did
    /// not write): flitsim's tables, plots and point records there are discarded when this run
    /// publishes its own (the records of points this run shares are reused); files flitsim
    /// did not write are kept.
    #[arg(long)]
    pub replace: bool,
    /// Seed, replacing the scenario's seed(s).
    #[arg(long)]
    pub seed: Option<u64>,
    /// No progress bar and no table.
    #[arg(long)]
    pub quiet: bool,
    /// Worker threads (default: one per core); results do not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}
