#!/usr/bin/env python3
"""The gallery (results/README.md) as one HTML page, to look at it in a browser as a reader would.

    gallery_html.py results/README.md build/gallery/gallery.html

The page's links are relative to results/; a <base> element points them there, so the HTML may lie
anywhere (`make gallery-preview` writes it under the build folder, never into results/). Needs Debian's
python3-markdown (GALLERY_DEB_PACKAGES in the Makefile). The style is a plain one close to how a
forge renders Markdown: the point is to see what reads badly, not to publish this page.
"""

import pathlib
import sys

import markdown

STYLE = """
body { font-family: sans-serif; font-size: 15px; line-height: 1.5; max-width: 1000px; margin: 2em auto;
       padding: 0 1em; color: #1f2328; }
h1, h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .3em; }
h3 { margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; display: block; overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; }
tr:nth-child(2n) { background: #f6f8fa; }
code { background: #eff1f3; padding: .1em .3em; border-radius: 4px; font-size: 90%; }
img { max-width: 100%; vertical-align: top; }
"""


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    source = pathlib.Path(sys.argv[1]).resolve()
    target = pathlib.Path(sys.argv[2])
    body = markdown.markdown(source.read_text(encoding="utf-8"), extensions=["tables"])
    target.write_text(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f"<base href=\"{source.parent.as_uri()}/\"><title>{source}</title>"
        f"<style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n",
        encoding="utf-8",
    )
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
