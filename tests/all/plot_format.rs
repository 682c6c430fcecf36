//! `flitsim plot --format png|pdf`: every plot written in the format; a PNG decodes at twice
//! its SVG's size with its text drawn (the embedded font, no system font needed); a PDF is one
//! page; an unknown format is refused (exit 2).

use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flitsim"))
}

/// The plots `flitsim plot` writes from one directory of a run with histogram.csv and
/// channels.csv.
const PLOTS: [&str; 6] = [
    "latency",
    "throughput",
    "latency_std",
    "traffic",
    "latency_hist",
    "heatmap",
];

/// A small mesh run, then `flitsim plot` in the default format (SVG) and in `format`.
fn plotted(format: &str) -> (TempDir, PathBuf) {
    let tmp = crate::common::temp_dir(&format!("plot-format-{format}"));
    let file = tmp.path().join("s.toml");
    std::fs::write(
        &file,
        "name = \"f\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nmessage_length = 8\n\
         flit_rates = [0.05, 0.2]\n[run]\nwarmup_cycles = 200\nmeasure_cycles = 1000\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = bin()
        .args(["run", file.to_str().unwrap(), "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    for args in [vec![], vec!["--format", format]] {
        let o = bin().arg("plot").arg(&out).args(args).output().unwrap();
        assert!(o.status.success(), "{o:?}");
    }
    (tmp, out)
}

/// An SVG's `width` and `height` attributes.
fn svg_size(path: &Path) -> (u32, u32) {
    let svg = std::fs::read_to_string(path).unwrap();
    let attr = |name: &str| -> u32 {
        let v = svg.split(&format!(" {name}=\"")).nth(1).unwrap();
        v[..v.find('"').unwrap()].parse().unwrap()
    };
    (attr("width"), attr("height"))
}

/// Every plot is a PNG at twice its SVG's size; latency.png has dark pixels in the band below
/// the x axis, where only its tick labels and axis title (text) are drawn.
#[test]
fn png_plots_decode_at_twice_the_svg_size_with_their_text_drawn() {
    let (_tmp, out) = plotted("png");
    for name in PLOTS {
        let file = std::fs::File::open(out.join(format!("{name}.png"))).unwrap();
        let mut reader = png::Decoder::new(file).read_info().unwrap();
        let (w, h) = svg_size(&out.join(format!("{name}.svg")));
        let info = reader.info();
        assert_eq!((info.width, info.height), (2 * w, 2 * h), "{name}");
        let mut buf = vec![0; reader.output_buffer_size()];
        let frame = reader.next_frame(&mut buf).unwrap();
        assert_eq!(frame.color_type, png::ColorType::Rgba);
        if name != "latency" {
            continue;
        }
        // The plotting area is 560 pixels high; its x axis at 560 - 15 - 45 = 500, the tick
        // labels and the axis title below it (at twice the size in the PNG).
        let row = |y: u32| &buf[(y * 2 * w * 4) as usize..((y + 1) * 2 * w * 4) as usize];
        let dark = (2 * 505..2 * 555)
            .flat_map(|y| row(y).chunks(4))
            .filter(|p| p[0] < 90 && p[1] < 90 && p[2] < 90 && p[3] > 200)
            .count();
        assert!(dark > 200, "text below the x axis: {dark} dark pixels");
    }
}

/// Every plot is a PDF of exactly one page.
#[test]
fn pdf_plots_have_one_page() {
    let (_tmp, out) = plotted("pdf");
    for name in PLOTS {
        let pdf = std::fs::read(out.join(format!("{name}.pdf"))).unwrap();
        assert!(pdf.starts_with(b"%PDF-"), "{name}");
        let count = |pat: &[u8]| pdf.windows(pat.len()).filter(|w| *w == pat).count();
        assert_eq!(count(b"/Type /Page") - count(b"/Type /Pages"), 1, "{name}");
    }
}

/// `--format bmp` is refused with exit 2, naming the formats there are.
#[test]
fn an_unknown_format_is_refused() {
    let o = bin()
        .args(["plot", "anywhere", "--format", "bmp"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("svg") && err.contains("png") && err.contains("pdf"),
        "{err}"
    );
}
