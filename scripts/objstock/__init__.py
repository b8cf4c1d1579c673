"""objstock: the Python side of the harness, as functions the scripts call and
the unit tests (tests/test_*.py) import.

    tap       kselftest TAP -> cases, and the verdict of a selftest program
              (plan, Bail out!, exit status)
    ktap      KUnit KTAP through the kernel's kunit.py parse -> cases
    verdict   one `make check` run -> results, judged against expected/
    expected  expected/base-*.txt: read it, and update it from a base run
    stats     mean, sd, Welch's t-test
    bench     results.json of `make`: its schema, and the cells of the tables
    report    the A/B report (report.md, tax*.dat)
    cover     the numbers section of the cover letter

The scripts in scripts/ are thin command lines around these.  Bad input
raises Error; run() turns it into one 'objstock: error: ...' line on stderr
and exit status DIE_STATUS, as scripts/lib.sh's die does: a shell stage that
runs the script then adds no line of its own.
"""
import os
import sys
import tempfile


DIE_STATUS = 86         # scripts/lib.sh: the status of a stage that printed its error


class Error(Exception):
    """bad input: one line for the user, no traceback"""


def run(main, argv=None):
    """sys.exit(main(argv)), an Error printed as one 'objstock: error:' line
    with exit status DIE_STATUS"""
    try:
        rc = main(sys.argv[1:] if argv is None else argv)
    except Error as e:
        print('objstock: error: %s' % e, file=sys.stderr)
        rc = DIE_STATUS
    sys.exit(rc)


def write_atomic(path, text):
    """write PATH as a whole or not at all: a temp file in the same directory,
    renamed over PATH (keeping PATH's mode) only once it is complete"""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix='.' + os.path.basename(path) + '.', dir=d)
    try:
        with os.fdopen(fd, 'w') as f:
            f.write(text)
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
