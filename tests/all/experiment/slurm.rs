//! `flitsim slurm` writes the job array, the merge job and the script that submits them with
//! the dependency; run here by bash as SLURM would run them (its #SBATCH lines are comments to
//! bash), they produce the tables of a single run. tests/slurm/e2e.sh runs them on a real
//! cluster.

use super::{TORUS, flitsim, ok, refused, scenario, tables};
use crate::common::temp_dir;

#[test]
fn the_scripts_run_the_shards_and_the_merge() {
    let tmp = temp_dir("exp-slurm");
    let d = tmp.path();
    let text = TORUS
        .replace(
            "[topology]",
            "[sweep]\n\"router.vcs\" = [3, 4]\n\n[topology]",
        )
        .replace("seed = 1", "seeds = [1, 2]");
    let s = scenario(d, "s.toml", &text);
    let o = flitsim(
        d,
        "slurm",
        &[
            "slurm",
            &s,
            "--tasks",
            "3",
            "--cpus",
            "2",
            "--partition",
            "short",
            "--time",
            "1:00:00",
            "--out",
            "cluster",
            "--set",
            "run.measure_cycles=3000",
        ],
    );
    ok(&o);
    assert!(o.stdout.contains("submit with: bash "), "{}", o.stdout);
    let dir = d.join("cluster").join("slurm");
    let shards = std::fs::read_to_string(dir.join("shards.sbatch")).unwrap();
    for line in [
        "#SBATCH --array=1-3",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --partition=short",
        "#SBATCH --time=1:00:00",
        "--shard \"$SLURM_ARRAY_TASK_ID/3\"",
        "--threads \"${SLURM_CPUS_PER_TASK:-1}\"",
        "--set 'run.measure_cycles=3000'",
    ] {
        assert!(shards.contains(line), "{line} not in\n{shards}");
    }
    let submit = std::fs::read_to_string(dir.join("submit.sh")).unwrap();
    assert!(submit.contains("--dependency=afterok:"), "{submit}");
    // As SLURM would: each array task, then the merge.
    for i in 1..=3 {
        let st = std::process::Command::new("bash")
            .arg(dir.join("shards.sbatch"))
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .env("SLURM_CPUS_PER_TASK", "2")
            .status()
            .unwrap();
        assert!(st.success(), "task {i}");
    }
    let st = std::process::Command::new("bash")
        .arg(dir.join("merge.sbatch"))
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "merge");
    ok(&flitsim(
        d,
        "single",
        &[
            "run",
            &s,
            "--out",
            "single",
            "--quiet",
            "--set",
            "run.measure_cycles=3000",
        ],
    ));
    assert_eq!(tables(&d.join("cluster")), tables(&d.join("single")));
    refused(
        &flitsim(d, "zero", &["slurm", &s, "--tasks", "0"]),
        &["--tasks 0"],
    );
}
