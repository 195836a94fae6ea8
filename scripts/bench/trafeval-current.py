#!/usr/bin/env python3
"""Builds trafilatura's current evaluation set (tests/evaldata.json: 990 documents, 2951 "with" and 2966 "without"
snippets at adbar/trafilatura e90b0ef5, 2026-08-21; trafilatura 2.2.0 publishes F 0.924 on it in docs/evaluation.rst)
in the format of ../shared/bench/extraction/trafeval/ (pages.json + html/<id>.html.gz + SOURCE.txt), so that folder's
score.py (--data DIR; its second line, whitespace collapsed, is the current set's metric: tests/eval_common.py) and
scripts/bench/extraction-loso.ts (--trafeval-current DIR) read it. It runs the shared prepare.py's own code (decoding,
charset rewriting, gzip, provenance) with only the page list read from evaldata.json instead of evaldata.py; nothing
of the snapshot is executed. Pages are third-party web pages: never commit them.

  scripts/bench/trafeval-current.py --out DIR [--repo BARE_GIT_DIR] [--commit SHA] [--prepare PATH/prepare.py]
"""
import argparse
import importlib.util
import json
import os
import sys

COMMIT = "e90b0ef51ab026fdb905fb6c5b3c84dd3d784fd5"
EXPECTED = {"documents": 990, "with": 2951, "without": 2966}

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--out", required=True)
ap.add_argument("--repo", default="/work/.mirror/adbar+trafilatura/repo")
ap.add_argument("--commit", default=COMMIT)
ap.add_argument("--prepare", default="/work/shared/bench/extraction/trafeval/prepare.py")
args = ap.parse_args()

spec = importlib.util.spec_from_file_location("trafeval_prepare", args.prepare)
prepare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(prepare)
prepare.load_eval_pages = lambda repo, commit: json.loads(prepare.git(repo, "show", f"{commit}:tests/evaldata.json"))
out = os.path.abspath(args.out)
os.makedirs(os.path.dirname(out), exist_ok=True)
prepare.HERE = os.path.dirname(out)  # its temporary folder goes beside the output, not into the shared folder
sys.argv = [sys.argv[0], "--repo", args.repo, "--commit", args.commit, "--out", out]
prepare.main()

pages = json.load(open(os.path.join(out, "pages.json"), encoding="utf-8"))
counts = {"documents": len(pages), "with": sum(len(p["with"]) for p in pages), "without": sum(len(p["without"]) for p in pages)}
source = os.path.join(out, "SOURCE.txt")
text = open(source, encoding="utf-8").read().replace("tests/evaldata.py EVAL_PAGES", "tests/evaldata.json")
open(source, "w", encoding="utf-8").write(text + "scoring: whitespace-collapsed substring tests (tests/eval_common.py count_item)\n")
if args.commit == COMMIT and counts != EXPECTED:
    sys.exit(f"expected {EXPECTED} at {COMMIT}, found {counts}")
