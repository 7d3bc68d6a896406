"""compare_common.py: the paths and the log line that compare.py and its
compare_*.py modules share."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def log(msg):
    print(f"compare: {msg}", file=sys.stderr, flush=True)
