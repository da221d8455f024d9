"""The project's one error type for bad input."""


class UsageError(Exception):
    """Bad input from the user: a claim file, selector, profile, records file or argument.

    The message is one line naming the file or claim and what is wrong; the CLI prints it and exits 2.
    """
