//! The page: a list of sections under a title, written as one HTML file with its CSS and its
//! script inline (no request leaves the page), and the components sections share: the text
//! escaping every string passes through, and the load selector (one panel per offered load,
//! one shown at a time).

/// The page's `generator` mark: an existing `--out` file is overwritten only when it has it.
pub const GENERATOR: &str = "<meta name=\"generator\" content=\"flitsim report\">";

/// Escapes `text` for HTML and SVG text and attribute values (`&`, `<`, `>`, `"`, `'`).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// One section of the page: its kind (`data-section`, the same for every directory's), its
/// element id (unique on the page), its heading and its body (HTML).
pub struct Section {
    /// What the section shows, e.g. `curves`, `provenance`.
    pub kind: &'static str,
    /// The element id.
    pub id: String,
    /// The heading.
    pub title: String,
    /// The body, HTML.
    pub body: String,
}

/// The page being assembled: a title and its sections in order.
pub struct Page {
    title: String,
    sections: Vec<Section>,
}

impl Page {
    /// An empty page titled `title`.
    pub fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            sections: Vec::new(),
        }
    }

    /// Adds a section at the end (with a link to it in the contents).
    pub fn add(&mut self, section: Section) {
        self.sections.push(section);
    }

    /// The whole page: head (title, CSS), contents, sections, the tooltip and the script.
    pub fn html(&self) -> String {
        let mut h = String::new();
        h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        h.push_str(GENERATOR);
        h.push_str(&format!("\n<title>{}</title>\n", esc(&self.title)));
        h.push_str(&format!("<style>{CSS}</style>\n</head>\n<body>\n"));
        h.push_str(&format!("<h1>{}</h1>\n<nav><ul>", esc(&self.title)));
        for s in &self.sections {
            h.push_str(&format!(
                "<li><a href=\"#{}\">{}</a></li>",
                esc(&s.id),
                esc(&s.title)
            ));
        }
        h.push_str("</ul></nav>\n");
        for s in &self.sections {
            h.push_str(&format!(
                "<section id=\"{}\" class=\"section\" data-section=\"{}\">\n<h2>{}</h2>\n{}\n</section>\n",
                esc(&s.id),
                s.kind,
                esc(&s.title),
                s.body
            ));
        }
        h.push_str("<div id=\"tooltip\" role=\"tooltip\" hidden></div>\n");
        h.push_str(&format!("<script>{SCRIPT}</script>\n</body>\n</html>\n"));
        h
    }
}

/// A load selector `id`: a drop-down of the loads' labels and one panel per load (its
/// HTML), the panel of the selected load shown, the first at first. Any section drawing
/// one view per offered load uses it.
pub fn load_selector(id: &str, panels: &[(String, String)]) -> String {
    let mut h = format!(
        "<div class=\"loads\" id=\"{}\"><label>Offered load <select class=\"load-select\" data-panels=\"{}\">",
        esc(id),
        esc(id)
    );
    for (i, (label, _)) in panels.iter().enumerate() {
        h.push_str(&format!("<option value=\"{i}\">{}</option>", esc(label)));
    }
    h.push_str("</select></label>");
    for (i, (label, body)) in panels.iter().enumerate() {
        let hidden = if i == 0 { "" } else { " hidden" };
        h.push_str(&format!(
            "<div class=\"load-panel\" data-load=\"{}\"{hidden}>{body}</div>",
            esc(label)
        ));
    }
    h.push_str("</div>");
    h
}

/// An HTML table of `header` and `rows` (cells escaped), numbers right-aligned.
pub fn table(class: &str, header: &[String], rows: &[Vec<String>]) -> String {
    let mut h = format!("<table class=\"{}\"><thead><tr>", esc(class));
    for c in header {
        h.push_str(&format!("<th>{}</th>", esc(c)));
    }
    h.push_str("</tr></thead><tbody>");
    for r in rows {
        h.push_str("<tr>");
        for c in r {
            let num = c.parse::<f64>().is_ok();
            let class = if num { " class=\"num\"" } else { "" };
            h.push_str(&format!("<td{class}>{}</td>", esc(c)));
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table>");
    h
}

/// The page's style: system fonts only, figures side by side where they fit.
const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em auto;max-width:1300px;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}h3{font-size:1.05em;margin:.8em 0 .3em}
nav ul{display:flex;flex-wrap:wrap;gap:.3em 1.2em;padding:0;list-style:none}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}th,td{border:1px solid #ddd;padding:.15em .5em}th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
dl.provenance{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dl.provenance dt{font-weight:600}dl.provenance dd{margin:0;font-family:ui-monospace,monospace;font-size:.9em;word-break:break-all}
.figures{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}figure{margin:0}figcaption{font-size:.85em;color:#555}
.legend{list-style:none;padding:0;margin:.3em 0;font-size:.85em;display:flex;flex-wrap:wrap;gap:.2em 1em}.legend li{cursor:pointer;user-select:none;display:flex;align-items:center;gap:.3em}.legend li.off{opacity:.35;text-decoration:line-through}
.scales button{font:inherit;font-size:.85em;margin-right:.3em}.scales button[aria-pressed=true]{font-weight:700}
svg{background:#fff}svg text{font-size:11px;fill:#333}.tick-x{text-anchor:middle}.tick-y{text-anchor:end}.pt{cursor:crosshair}
#tooltip{position:absolute;background:#222;color:#fff;font-size:12px;padding:.3em .5em;border-radius:3px;pointer-events:none;max-width:420px}
.loads select{margin:0 0 .5em .5em}.note{color:#555;font-size:.9em}
";

/// The page's behaviour: the tooltip of any element with `data-tip`, legends that hide and
/// show their curves, the linear/log switch, the load selectors.
const SCRIPT: &str = r#"
(function(){
var tip=document.getElementById('tooltip');
document.addEventListener('mouseover',function(e){
 var t=e.target.closest?e.target.closest('[data-tip]'):null;
 if(!t){tip.hidden=true;return;}
 tip.textContent=t.getAttribute('data-tip');tip.hidden=false;
 tip.style.left=(e.pageX+14)+'px';tip.style.top=(e.pageY+14)+'px';
});
document.querySelectorAll('.legend li[data-curve]').forEach(function(li){
 li.addEventListener('click',function(){
  var off=li.classList.toggle('off');
  document.querySelectorAll('.curve[data-curve="'+li.getAttribute('data-curve')+'"]').forEach(function(g){g.style.display=off?'none':'';});
 });
});
document.querySelectorAll('.scales').forEach(function(box){
 var fig=box.parentNode;
 box.querySelectorAll('button').forEach(function(b){
  b.addEventListener('click',function(){
   var s=b.getAttribute('data-scale');
   box.querySelectorAll('button').forEach(function(o){o.setAttribute('aria-pressed',String(o===b));});
   fig.querySelectorAll('.scale-view').forEach(function(v){v.hidden=v.getAttribute('data-scale')!==s;});
  });
 });
});
document.querySelectorAll('select.load-select').forEach(function(sel){
 var box=document.getElementById(sel.getAttribute('data-panels'));
 sel.addEventListener('change',function(){
  box.querySelectorAll(':scope > .load-panel').forEach(function(p,i){p.hidden=String(i)!==sel.value;});
 });
});
document.querySelectorAll('.heatmaps[data-loads]').forEach(function(box){
 var id=box.getAttribute('data-loads'),d=JSON.parse(document.getElementById(id+'-data').textContent);
 var sel=document.querySelector('select[data-panels="'+id+'"]');
 function show(){
  var key=sel.options[sel.selectedIndex].text;
  box.querySelectorAll(':scope > figure').forEach(function(f,i){
   var u=d.series[i][key];f.hidden=!u;if(!u)return;
   f.querySelectorAll('path.link').forEach(function(p,j){
    var v=u[j]/d.steps,t=p.querySelector('title'),s=t.textContent;
    p.setAttribute('stroke',d.palette[u[j]]);p.setAttribute('data-util',String(v));
    t.textContent=s.slice(0,s.lastIndexOf(', ')+2)+v.toFixed(3)+' flits/cycle';
    p.setAttribute('data-tip',t.textContent);
   });
  });
 }
 sel.addEventListener('change',show);show();
});
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_both_quotes_and_leaves_the_rest() {
        assert_eq!(
            esc(r#"<a href="x">R&D's</a>"#),
            "&lt;a href=&quot;x&quot;&gt;R&amp;D&#39;s&lt;/a&gt;"
        );
        assert_eq!(esc("τ=10, V=3 — ok"), "τ=10, V=3 — ok");
        assert_eq!(esc(""), "");
        // Escaping twice escapes the ampersands it wrote: nothing is taken for markup.
        assert_eq!(esc("&lt;"), "&amp;lt;");
    }

    #[test]
    fn a_section_is_one_call_and_the_page_links_it() {
        let mut page = Page::new("t<1>");
        page.add(Section {
            kind: "curves",
            id: "curves".into(),
            title: "Load & latency".into(),
            body: "<p>x</p>".into(),
        });
        let h = page.html();
        assert!(h.contains("<title>t&lt;1&gt;</title>"));
        assert!(h.contains("<a href=\"#curves\">Load &amp; latency</a>"));
        assert!(h.contains("data-section=\"curves\""));
        assert!(h.contains(GENERATOR));
        assert!(
            !h.contains("http://") && !h.contains("https://"),
            "no request leaves the page"
        );
    }

    #[test]
    fn the_load_selector_shows_the_first_panel_only() {
        let h = load_selector(
            "d0",
            &[("0.1".into(), "A".into()), ("0.2".into(), "B".into())],
        );
        assert!(h.contains("<option value=\"1\">0.2</option>"));
        assert!(h.contains("data-load=\"0.1\">A</div>"));
        assert!(h.contains("data-load=\"0.2\" hidden>B</div>"));
    }
}
