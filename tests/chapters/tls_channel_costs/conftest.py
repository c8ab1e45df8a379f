"""The chapter's tests import the shared chapter test helpers (``props``) from the folder above."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
