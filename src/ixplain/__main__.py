"""``python -m ixplain``: the same as the ``ixplain`` command."""

from ixplain.cli import main

if __name__ == "__main__":
    main()
