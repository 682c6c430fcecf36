"""A screenshot of one section of a `flitsim report` page, taken in headless chromium (Debian's
chromium and chromium-driver, driven by python3-selenium; tests/browser/run.sh installs them).

Usage (from the repository root, after `bash results/regenerate.sh`):
  /usr/bin/python3 results/report_screenshot.py results/study-torus-8x8-routing/report.html \
      heatmap-section-0 0.35 2 docs/src/images/report-heatmap.png
The third argument picks the load whose option text starts with it in the section's load
selector ("" keeps the first); the fourth keeps the section's first drawings (its figures of
class heatmap) and hides the rest and the tables under them, so the picture stays short.
"""

import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


def main(report, section, load, keep, out):
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1700,1000"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    try:
        driver.get("file://" + os.path.abspath(report))
        element = driver.find_element(By.ID, section)
        if load:
            select = Select(element.find_element(By.TAG_NAME, "select"))
            texts = [o.text for o in select.options]
            select.select_by_index(next(i for i, t in enumerate(texts) if t.startswith(load)))
        driver.execute_script(
            "var s=arguments[0],k=arguments[1];"
            "s.querySelectorAll('figure.heatmap').forEach(function(f,i){if(i>=k)f.style.display='none';});"
            "s.querySelectorAll('.load-panel').forEach(function(p){p.style.display='none';});"
            "s.scrollIntoView();",
            element,
            int(keep),
        )
        with open(out, "wb") as f:
            f.write(element.screenshot_as_png)
    finally:
        driver.quit()


if __name__ == "__main__":
    main(*sys.argv[1:6])
