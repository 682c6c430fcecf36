//! The format of the files `flitsim plot` writes (`--format`): SVG as drawn; PNG rendered by
//! resvg at twice the SVG's size; PDF converted by svg2pdf, one page of the SVG's size (vector
//! graphics, its text embedded as text). Both read the SVG through usvg with the DejaVu Sans
//! font flitsim carries (assets/fonts, its licence beside it) as every font family, so that
//! no system font is needed and a plot looks the same on every machine.

use crate::error::{Error, Result};
use resvg::usvg;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// DejaVu Sans (Bitstream Vera licence: assets/fonts/DejaVuSans-LICENSE.txt).
const FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// The font's family name.
const FAMILY: &str = "DejaVu Sans";

/// A PNG's pixels per SVG pixel.
pub const PNG_SCALE: u32 = 2;

/// The format of the plots' files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// SVG, as drawn.
    #[default]
    Svg,
    /// PNG, rendered at twice the SVG's size (`PNG_SCALE`).
    Png,
    /// PDF, one page, vector graphics.
    Pdf,
}

impl Format {
    /// The format named `svg`, `png` or `pdf`.
    pub fn parse(name: &str) -> Result<Format> {
        match name {
            "svg" => Ok(Format::Svg),
            "png" => Ok(Format::Png),
            "pdf" => Ok(Format::Pdf),
            other => Err(Error::Input(format!(
                "plot: --format {other} is not a format flitsim writes; fix: give --format svg, png or pdf"
            ))),
        }
    }

    /// The files' extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
            Format::Pdf => "pdf",
        }
    }

    /// `svg` (an SVG document's text) in this format.
    pub fn encode(self, svg: &str) -> std::result::Result<Vec<u8>, String> {
        if self == Format::Svg {
            return Ok(svg.as_bytes().to_vec());
        }
        let options = usvg::Options {
            font_family: FAMILY.to_string(),
            fontdb: fonts(),
            ..usvg::Options::default()
        };
        let tree = usvg::Tree::from_str(svg, &options).map_err(|e| e.to_string())?;
        match self {
            Format::Png => png(&tree),
            _ => svg2pdf::to_pdf(
                &tree,
                svg2pdf::ConversionOptions::default(),
                svg2pdf::PageOptions::default(),
            )
            .map_err(|e| e.to_string()),
        }
    }
}

/// The font database: DejaVu Sans alone, as every generic family.
fn fonts() -> Arc<usvg::fontdb::Database> {
    static FONTS: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = usvg::fontdb::Database::new();
            db.load_font_data(FONT.to_vec());
            db.set_sans_serif_family(FAMILY);
            db.set_serif_family(FAMILY);
            db.set_monospace_family(FAMILY);
            Arc::new(db)
        })
        .clone()
}

/// The tree rendered at [`PNG_SCALE`] times its size on white, as PNG.
fn png(tree: &usvg::Tree) -> std::result::Result<Vec<u8>, String> {
    let size = tree.size().to_int_size();
    let (w, h) = (size.width() * PNG_SCALE, size.height() * PNG_SCALE);
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| format!("cannot render a {w} x {h} image"))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    let scale = PNG_SCALE as f32;
    let transform = resvg::tiny_skia::Transform::from_scale(scale, scale);
    resvg::render(tree, transform, &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| e.to_string())
}

/// Writes the plots `files` (name, SVG text) into `dir` in `format` (each `.svg` name given
/// the format's extension), each atomically, listed in its manifest as plots (the directory is
/// locked meanwhile; a file of those names that flitsim did not write is refused, never
/// overwritten); returns the paths written.
pub(super) fn write(
    dir: &Path,
    files: Vec<(String, String)>,
    format: Format,
) -> Result<Vec<String>> {
    let files: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|(name, svg)| {
            let name = match name.strip_suffix(".svg") {
                Some(stem) => format!("{stem}.{}", format.extension()),
                None => name,
            };
            let bytes = format
                .encode(&svg)
                .map_err(|e| Error::Io(format!("{}: {e}", dir.join(&name).display())))?;
            Ok((name, bytes))
        })
        .collect::<Result<_>>()?;
    let claim = crate::experiment::directory::Claim {
        owner: crate::experiment::directory::Owner::Plots,
        scenario: String::new(),
        given: String::new(),
        replace: false,
    };
    let out = crate::experiment::directory::OutDir::open(dir, claim)?;
    out.add_plots(&files)?;
    Ok(files
        .iter()
        .map(|(name, _)| dir.join(name).display().to_string())
        .collect())
}
