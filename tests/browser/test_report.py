"""`flitsim report` in headless chromium (run by tests/browser/run.sh, which sets REPORT, the
page of three directories: a sweep of two routings, a validated run and a saturation search;
SWEEP, the sweep's directory; SHOT, where the screenshot is kept)."""

import csv
import os
import struct
import zlib

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

REPORT = os.environ["REPORT"]
SWEEP = os.environ["SWEEP"]
SHOT = os.environ["SHOT"]

# The curves: the sweep's two routings and the validated run's one configuration.
CURVES = 3


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    driver.get("file://" + os.path.abspath(REPORT))
    yield driver
    driver.quit()


def severe(driver):
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def shown(elements):
    return [e for e in elements if e.is_displayed()]


def latency_view(driver, scale):
    return driver.find_element(By.CSS_SELECTOR, f'#curves .scale-view[data-scale="{scale}"]')


def test_no_console_errors_on_load(browser):
    assert severe(browser) == []


def test_every_section_is_there(browser):
    kinds = [s.get_attribute("data-section") for s in browser.find_elements(By.CSS_SELECTOR, "section")]
    assert sorted(set(kinds)) == sorted(
        ["provenance", "curves", "saturation", "validation", "heatmap", "latency-distribution", "hops", "vc-occupancy"]
    )
    # Each directory its own provenance; the sweep's and the validated run's distributions.
    assert kinds.count("provenance") == 3
    assert kinds.count("latency-distribution") == 2
    assert kinds.count("heatmap") == 2
    assert kinds.count("hops") == 2
    assert kinds.count("vc-occupancy") == 2


def test_one_curve_per_configuration_and_the_saturation_marks(browser):
    view = latency_view(browser, "linear")
    assert len(view.find_elements(By.CSS_SELECTOR, ".curve")) == CURVES
    assert len(browser.find_elements(By.CSS_SELECTOR, "#curves .legend li")) == CURVES
    # The saturation search's two configurations are the sweep's: a mark on each curve.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#curves .sat-mark")) == 2


def pooled_rows():
    with open(os.path.join(SWEEP, "pooled.csv"), newline="") as f:
        return list(csv.DictReader(f))


def test_the_embedded_points_are_pooled_csv_s_and_hovering_shows_them(browser):
    rows = [r for r in pooled_rows() if r["routing.algorithm"] == "dor" and r["saturated"] == "0"]
    assert rows, "dimension order has points below saturation"
    points = latency_view(browser, "linear").find_elements(By.CSS_SELECTOR, '.curve[data-curve="c0-0"] .pt')
    assert len(points) == len(rows)
    for row, pt in zip(rows, points):
        assert float(pt.get_attribute("data-x")) == float(row["offered_flits"])
        assert float(pt.get_attribute("data-y")) == float(row["latency_mean"])
    # The other curves hidden (at light load they cover dimension order's first point).
    others = browser.find_elements(By.CSS_SELECTOR, '#curves .legend li:not([data-curve="c0-0"])')
    for entry in others:
        entry.click()
    ActionChains(browser).move_to_element(points[0]).perform()
    tip = browser.find_element(By.ID, "tooltip")
    assert tip.is_displayed()
    assert rows[0]["latency_mean"] in tip.text
    assert rows[0]["offered_flits"] in tip.text
    assert ": dor:" in tip.text
    for entry in others:
        entry.click()


def test_a_legend_entry_hides_and_shows_its_curve(browser):
    entry = browser.find_element(By.CSS_SELECTOR, '#curves .legend li[data-curve="c0-1"]')
    curves = browser.find_elements(By.CSS_SELECTOR, '#curves .curve[data-curve="c0-1"]')
    assert shown(curves), "the curve is drawn at first"
    entry.click()
    assert shown(curves) == []
    others = latency_view(browser, "linear").find_elements(By.CSS_SELECTOR, '.curve[data-curve="c0-0"]')
    assert shown(others), "the other curves stay"
    entry.click()
    assert shown(curves)


def tick_labels(browser):
    return [t.text for t in shown(browser.find_elements(By.CSS_SELECTOR, "#curves svg[data-plot=latency] .tick-y"))]


def test_the_log_switch_changes_the_latency_axis(browser):
    linear = tick_labels(browser)
    assert linear and linear[0] == "0"
    browser.find_element(By.CSS_SELECTOR, '#curves .scales button[data-scale="log"]').click()
    log = tick_labels(browser)
    assert log != linear
    assert "10" in log and "0" not in log, log
    browser.find_element(By.CSS_SELECTOR, '#curves .scales button[data-scale="linear"]').click()
    assert tick_labels(browser) == linear


def test_the_load_selector_shows_one_load(browser):
    box = browser.find_element(By.CSS_SELECTOR, "#latency-distribution-0 .loads")
    panels = box.find_elements(By.CSS_SELECTOR, ".load-panel")
    assert len(panels) >= 2
    assert [p.is_displayed() for p in panels] == [True] + [False] * (len(panels) - 1)
    Select(box.find_element(By.TAG_NAME, "select")).select_by_index(1)
    assert [p.is_displayed() for p in panels] == [False, True] + [False] * (len(panels) - 2)


def heatmap_links(browser, section):
    """Each drawing's link elements in heatmap section `section` (0: the sweep, 1: the validated run)."""
    figures = browser.find_elements(By.CSS_SELECTOR, f"#heatmap-section-{section} figure.heatmap")
    return [f.find_elements(By.CSS_SELECTOR, "path.link") for f in figures]


def test_every_link_is_drawn_once_per_configuration(browser):
    # The sweep: two routings on the bidirectional 4-ary 2-cube, 16 routers x 4 links; the
    # validated run: one configuration on the unidirectional one, 16 x 2.
    assert [len(f) for f in heatmap_links(browser, 0)] == [64, 64]
    assert [len(f) for f in heatmap_links(browser, 1)] == [32]
    channels = [int(p.get_attribute("data-channel")) for p in heatmap_links(browser, 0)[0]]
    assert channels == list(range(64))


def test_choosing_a_load_recolours_the_links_and_hovering_one_shows_its_value(browser):
    box = browser.find_element(By.CSS_SELECTOR, "#heatmap-section-0 .loads")
    select = Select(box.find_element(By.TAG_NAME, "select"))
    links = heatmap_links(browser, 0)[0]
    before = [p.get_attribute("data-util") for p in links]
    colours = [p.get_attribute("stroke") for p in links]
    assert len(set(colours)) > 1
    select.select_by_index(len(select.options) - 1)
    after = [p.get_attribute("data-util") for p in links]
    assert after != before
    # The highest load carries more on the busiest link than the lowest.
    assert max(map(float, after)) > max(map(float, before))
    assert [p.get_attribute("stroke") for p in links] != colours
    hot = max(links, key=lambda p: float(p.get_attribute("data-util")))
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", hot)
    ActionChains(browser).move_to_element(hot).perform()
    tip = browser.find_element(By.ID, "tooltip")
    assert tip.is_displayed()
    util = float(hot.get_attribute("data-util"))
    assert tip.text.endswith(f"{util:.3f} flits/cycle"), tip.text
    assert tip.text.startswith(f"channel {hot.get_attribute('data-channel')}: "), tip.text
    select.select_by_index(0)
    assert [p.get_attribute("data-util") for p in links] == before


def test_a_screenshot_of_the_heatmaps_is_not_blank(browser):
    section = browser.find_element(By.ID, "heatmap-section-0")
    browser.execute_script("arguments[0].scrollIntoView()", section)
    png = section.screenshot_as_png
    with open(os.path.join(os.path.dirname(SHOT), "heatmap.png"), "wb") as f:
        f.write(png)
    pixels = png_pixels(png)
    assert len(set(pixels)) > 20
    # Some link is drawn in a colour of the scale's upper half (orange to dark red: red
    # above green and blue).
    assert any(p[0] > 200 and p[1] < 180 and p[2] < 140 for p in pixels)


def png_pixels(data):
    """The RGB(A) pixels of an 8-bit, non-interlaced PNG, rows unfiltered (PNG spec sec. 9)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return [row[i : i + 3] for row in rows for i in range(0, stride, bpp)]


def test_a_screenshot_of_the_curves_is_not_blank(browser):
    browser.find_element(By.ID, "curves").location_once_scrolled_into_view
    png = browser.get_screenshot_as_png()
    with open(SHOT, "wb") as f:
        f.write(png)
    pixels = png_pixels(png)
    colours = set(pixels)
    not_white = sum(1 for p in pixels if p != b"\xff\xff\xff")
    assert len(colours) > 20, len(colours)
    assert not_white > len(pixels) // 50, (not_white, len(pixels))
    # The palette's orange and sky blue (the two routings' curves) are on the page.
    assert b"\xe6\x9f\x00" in colours and b"\x56\xb4\xe9" in colours


def test_no_console_errors_after_all_that(browser):
    assert severe(browser) == []
