#!/usr/bin/env python3
"""Make the page's chess pieces from Maurizio Monge's chess-art templates.

chess-art (https://github.com/maurimo/chess-art, MIT licence) ships each
piece as one configurable template; its configuration page colours them.
This script does what that page does with fixed colours (white: white to
#d8d0c0 with a black edge; black: #7f899b to #1c1c2f with a black edge, the
page's defaults), drops the blurred shadow and the editor's metadata, and
writes twelve small files, wK.svg .. bP.svg, to src/web/page/pieces/.

    git clone https://github.com/maurimo/chess-art /tmp/chess-art
    python3 scripts/piece_set.py /tmp/chess-art fantasy

The output is committed; the page needs neither this script nor the
templates. The licence is kept beside the files (src/web/page/pieces/LICENSE).
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
SIDES = {
    "w": {"stop0": "#ffffff", "stop1": "#d8d0c0", "stroke": "#000000"},
    "b": {"stop0": "#7f899b", "stop1": "#1c1c2f", "stroke": "#000000"},
}
STROKE_MEDIUM = 20
STROKE_BOUNDARY = 35


def local(tag):
    return tag.split("}", 1)[-1]


def piece(template: pathlib.Path, side: dict) -> str:
    ET.register_namespace("", SVG)
    ET.register_namespace("xlink", XLINK)
    root = ET.parse(template).getroot()
    # Drop the editor's elements and attributes, the shadow and its filter.
    def prune(node):
        for child in list(node):
            name = local(child.tag)
            if (
                not child.tag.startswith("{" + SVG)
                or name in ("metadata", "style")
                or child.get("id") in ("shadow", "filterBlur")
            ):
                node.remove(child)
                continue
            for key in list(child.attrib):
                if key.startswith("{") and not key.startswith("{" + XLINK):
                    del child.attrib[key]
            prune(child)

    prune(root)
    for key in list(root.attrib):
        if key.startswith("{") or key in ("width", "height", "id", "version"):
            del root.attrib[key]
    for stop in root.iter("{%s}stop" % SVG):
        colour = side[stop.get("id")]
        stop.set("style", f"stop-color:{colour};stop-opacity:1")
    style = ET.Element("{%s}style" % SVG)
    style.text = (
        ".base{fill-opacity:1;fill-rule:evenodd;stroke-linecap:round;stroke-linejoin:round}"
        f".stroke-color{{stroke:{side['stroke']}}}"
        f".fill-color{{fill:{side['stop0']}}}"
        f".stroke-medium{{stroke-width:{STROKE_MEDIUM}}}"
        f".stroke-boundary{{stroke-width:{STROKE_BOUNDARY}}}"
    )
    root.insert(0, style)
    text = ET.tostring(root, encoding="unicode")
    # Numbers to two decimals: the files shrink by half, the drawing does not change.
    text = re.sub(r"(\d+\.\d{2})\d+", r"\1", text)
    return "<!-- chess-art by Maurizio Monge, MIT licence: see LICENSE -->\n" + text + "\n"


def main():
    repo, theme = pathlib.Path(sys.argv[1]), sys.argv[2]
    out = pathlib.Path(__file__).resolve().parent.parent / "src/web/page/pieces"
    out.mkdir(parents=True, exist_ok=True)
    for letter in "kqrbnp":
        for colour, side in SIDES.items():
            svg = piece(repo / theme / f"{letter}.svg", side)
            (out / f"{colour}{letter.upper()}.svg").write_text(svg)
    (out / "LICENSE").write_text(
        f"The pieces in this folder are the '{theme}' set of chess-art\n"
        "(https://github.com/maurimo/chess-art) by Maurizio Monge, coloured by\n"
        "scripts/piece_set.py. They are under the MIT licence:\n\n"
        + (repo / "LICENSE").read_text()
    )


if __name__ == "__main__":
    main()
