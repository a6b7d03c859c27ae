"""``python -m softmix`` is the ``softmix`` command."""
import sys

from softmix.checks.cli import main

sys.exit(main())
