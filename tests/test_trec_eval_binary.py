"""`harness trec_eval` against a trec_eval binary on generated judgments and runs, under random
flags and measure lists (issue 26's property test).

The binary: the trec_eval that Anserini's fatjar carries for Linux x86-64 (jtreceval's build of
trec_eval 9.0.4, in the pyserini wheel the harness installs). It is here offline, in CI too, where
trec_eval's repository (to build 9.0.8 from source) cannot be reached. Its measure code is 9.0.8's:
`git diff v9.0.4 v9.0.8` in usnistgov/trec_eval changes only how files are read (read -> fread)
and Windows portability, no measure, no output format. Set TREC_EVAL to another binary (e.g. 9.0.8
built from source) to run the same test against it.

Where trec_eval stops instead of printing (9.0.4 and 9.0.8 alike: a measure such as num_ret
over a topic judged only negative under -c makes it exit with "Can't calculate measure"), the
harness prints a value; those cases are counted, not compared.

The judgments trec_eval reads with -R prefs, qrels_prefs and qrels_jg, and their measures, have
a property test of their own (test_other_judgments_print_what_trec_eval_prints). Their code is the
same in 9.0.4 and 9.0.8 (`git diff v9.0.4 v9.0.8` changes only how the files are read), and both
binaries print trec_eval's out.test.prefs, out.test.qrels_prefs and out.test.qrels_jg.
"""

from __future__ import annotations

import os
import platform
import random
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cli import main
from harness.metrics.trec_names import parse_requests

from .conftest import REPO
from .test_trec_eval import harness_trec_eval

MEASURES = (
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P relstring "
    "recall infAP gm_bpref Rprec_mult utility 11pt_avg binG G ndcg ndcg_rel Rndcg ndcg_cut map_cut relative_P "
    "success set_P set_relative_P set_recall set_map set_F num_nonrel_judged_ret yaap official set all_trec"
).split()


def families(names: list[str]) -> list[str]:
    """The families of the measure table (harness.metrics.families) that trec_eval's ``-m`` names
    request: what a test comparing their output lines checks against the binary."""
    return sorted({r.trec.family.name for r in parse_requests(names) if r.trec.family is not None})


@pytest.fixture(scope="module")
def trec_eval(tmp_path_factory) -> Path:
    if os.environ.get("TREC_EVAL"):
        return Path(os.environ["TREC_EVAL"])
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        pytest.fail(f"the fatjar's trec_eval is built for Linux x86-64, not {platform.system()} {platform.machine()}")
    from harness.engine.lucene import anserini_jar

    out = tmp_path_factory.mktemp("trec_eval") / "trec_eval"
    with zipfile.ZipFile(anserini_jar()) as jar:
        out.write_bytes(jar.read("trec_eval/trec_eval-linux-amd64"))
    out.chmod(out.stat().st_mode | stat.S_IXUSR)
    v = subprocess.run([out, "-v"], capture_output=True, text=True)
    assert "trec_eval version 9.0" in v.stdout + v.stderr, v
    return out


def generate(seed: int, folder: Path) -> list[str]:
    """A qrels and a run file in ``folder`` and a trec_eval command line over them: topic ids
    that sort differently as text and numbers, graded and negative judgments, unjudged and
    retrieved-twice-as-relevant documents, tied and nearly tied scores, two run tags."""
    rnd = random.Random(seed)
    docs = [f"d{i}" for i in range(60)] + [f"D{i}x" for i in range(20)]
    qrels, run = [], []
    for t in range(rnd.randint(1, 8)):
        qid = str(rnd.choice([t, t * 10, 100 + t]))
        if rnd.random() < 0.85:
            for d in rnd.sample(docs, rnd.randint(1, 40)):
                qrels.append(f"{qid} 0 {d} {rnd.choice([-1, 0, 0, 1, 1, 2, 3])}\n")
        if rnd.random() < 0.85:
            for i, d in enumerate(rnd.sample(docs, rnd.randint(1, 50))):
                s = rnd.choice([1.0, 2.0, 3.5, 1.00000001, 1.00000002, round(rnd.random(), 3), rnd.random() * 40])
                run.append(f"{qid} Q0 {d} {i + 1} {s!r} run{t % 2}\n")
    (folder / "q.txt").write_text("".join(qrels))
    (folder / "r.txt").write_text("".join(run))
    flags = []
    for p, flag in ((0.5, "-q"), (0.4, "-c"), (0.3, f"-M{rnd.randint(1, 30)}"), (0.3, "-J")):
        if rnd.random() < p:
            flags.append(flag)
    if rnd.random() < 0.3:
        flags.append(f"-l{rnd.randint(1, 3)}")
    if rnd.random() < 0.2:
        flags.append("-n")
    if rnd.random() < 0.2:
        flags += ["-N", str(rnd.randint(100, 1000))]
    if rnd.random() < 0.25:  # -Z: the file is written by the test, from the measures printed
        flags += ["-Z", "z.txt"]
    for m in rnd.sample(MEASURES, rnd.randint(1, 10)):
        if m in ("P", "recall", "ndcg_cut", "map_cut", "success", "relative_P") and rnd.random() < 0.5:
            m += "." + ",".join(str(x) for x in rnd.sample(range(1, 60), rnd.randint(1, 4)))
        elif m in ("iprec_at_recall", "Rprec_mult") and rnd.random() < 0.5:
            m += "." + ",".join(str(round(rnd.random() * 2, 2)) for _ in range(2))
        elif m == "utility" and rnd.random() < 0.5:
            m += ".2,-1,0.5," + str(rnd.choice([0, 0.001]))
        elif m == "set_F" and rnd.random() < 0.5:
            m += ".0.5"
        elif m == "11pt_avg" and rnd.random() < 0.5:
            m += ".0.2,0.5,0.8"
        elif m in ("G", "ndcg", "ndcg_rel", "Rndcg") and rnd.random() < 0.5:
            pairs = rnd.sample(range(0, 5), rnd.randint(1, 3))
            m += "." + ",".join(f"{lv}={rnd.choice([0, 0.5, 1, 2.5, 3, -1, 9])}" for lv in pairs)
        elif m == "relstring" and rnd.random() < 0.5:
            m += "." + str(rnd.randint(1, 30))
        flags += ["-m", m]
    return flags


def write_zscores(trec_eval: Path, flags: list[str], folder: Path, rnd: random.Random) -> None:
    """z.txt for -Z: means and stddevs (some 0, some NaN) for every measure trec_eval prints,
    for a sample of the topics that includes the last one (as strcmp sorts them). trec_eval
    9.0.8's binary searches of its z-score tables read one past their end and crash on a topic,
    or a topic's measure, that sorts after every one in the file; the harness gives such a
    value -1000000, as trec_eval's code means to, and so does trec_eval for any other absent
    topic or measure."""
    plain = [f for i, f in enumerate(flags) if f != "-Z" and (i == 0 or flags[i - 1] != "-Z")]
    r = subprocess.run([trec_eval, *plain, "-q", "q.txt", "r.txt"], cwd=folder, capture_output=True, text=True)
    names: dict[str, list[str]] = {}
    for line in r.stdout.splitlines():
        name, qid, _ = line.split("\t")
        if qid != "all":  # relstring too: it has a value trec_eval converts (and never prints)
            names.setdefault(qid, []).append(name.strip())
    rows = []
    topics = set(rnd.sample(sorted(names), rnd.randint(0, len(names))))
    if names:
        topics.add(max(names, key=lambda q: q.encode()))  # as for measures: see above, for topics
    for qid in sorted(topics):
        for name in names[qid]:
            mean, std = rnd.choice([(0.3, 0.1), (0.0, 0.0), (1.0, 0.0), (5.0, 2.5), ("nan", "nan"), (0.2, 0.0)])
            rows.append(f"{qid}\t{name}\t{mean}\t{std}\n")
    (folder / "z.txt").write_text("".join(rows) or "999\tmap\t0\t1\n")


STOPPED: list[int] = []


@pytest.mark.oracle(*families(MEASURES), by="the trec_eval binary in Anserini's fatjar")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31))
def test_harness_trec_eval_prints_what_trec_eval_prints(trec_eval, tmp_path, capsys, seed):
    flags = generate(seed, tmp_path)
    if "-Z" in flags:
        write_zscores(trec_eval, flags, tmp_path, random.Random(seed))
    ref = subprocess.run([trec_eval, *flags, "q.txt", "r.txt"], cwd=tmp_path, capture_output=True, text=True)
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        code = main(["trec_eval", *flags, "q.txt", "r.txt"])
    finally:
        os.chdir(cwd)
    out = capsys.readouterr()
    if ref.returncode < 0:  # trec_eval killed by a signal: -Z's searches read past their tables
        assert "-Z" in flags and code == 0, (flags, ref.returncode)
        STOPPED.append(seed)
        return
    if ref.returncode != 0 and "Can't calculate measure" in ref.stderr:
        STOPPED.append(seed)
        return
    if ref.returncode != 0:  # nothing to evaluate: the harness refuses too, with its sentence
        assert code != 0 and out.err.startswith("harness:") and "Traceback" not in out.err, (ref.stderr, out.err)
        return
    assert code == 0, out.err
    assert out.out == ref.stdout, (flags, (tmp_path / "q.txt").read_text(), (tmp_path / "r.txt").read_text())


@pytest.mark.parametrize(
    "measure",
    [
        "ndcg.1=1e400",  # an infinite gain: the harness stopped with "internal error: OverflowError"
        "ndcg.1=1e308,2=-1e308",
        "ndcg_rel.1=1e400",
        "Rndcg.1=1e400",
        "ndcg.1=3e9",  # gains 2**31 or more apart compare as INT_MIN in trec_eval's (int) difference
        "ndcg_rel.1=3e9,2=1",
        "Rndcg.1=3e9,2=-3e9",
        "Rprec_mult.1e400",  # (long) of infinity: LONG_MIN, without numpy's RuntimeWarning
        "iprec_at_recall.1e400",
        "11pt_avg.1e400",
        "G.1=1e400",  # log2 of a negative number: the harness printed -nan, the binary's libm gives nan
        "G.1=1e400,2=1",
        "G.2=1e400",
        "G.0=1e400",
        "G.0=1e400,2=1e400",
        "G.1=1e400,2=3",
        "G.0=-1e400,1=1e400",
    ],
)
def test_gains_and_levels_beyond_c_integers_print_what_trec_eval_prints(trec_eval, tmp_path, measure):
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n1 0 d 2\n1 0 e 1\n2 0 c 1\n2 0 f 2\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n1 Q0 d 3 0.5 x\n2 Q0 c 1 3.0 x\n2 Q0 f 2 1.0 x\n")
    argv = ["-q", "-m", measure, str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]
    ref = subprocess.run([trec_eval, *argv], capture_output=True, text=True)
    got = subprocess.run(
        [sys.executable, "-m", "harness", "trec_eval", *argv], cwd=REPO, capture_output=True, text=True
    )
    assert ref.returncode == 0 and got.returncode == 0, got.stderr
    assert got.stderr == "" and got.stdout == ref.stdout


def _same_output(trec_eval, tmp_path, args):
    """Both succeed on ``args`` and print the same bytes."""
    ref, got = _both(trec_eval, tmp_path, args)
    assert ref.returncode == 0 and got.returncode == 0, got.stderr
    assert got.stdout == ref.stdout


def _both(trec_eval, tmp_path, args):
    """(the binary's run, the harness's run) of one command line over a small qrels and run."""
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n1 0 d 2\n1 0 e 1\n2 0 c 1\n2 0 f 2\n3 0 g 1\n")
    (tmp_path / "r.txt").write_text(
        "1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n1 Q0 d 3 0.5 x\n1 Q0 e 4 0.2 x\n2 Q0 c 1 3.0 x\n2 Q0 f 2 1.0 x\n"
        "2 Q0 z 3 4.0 x\n3 Q0 y 1 1.0 x\n3 Q0 g 2 0.5 x\n"
    )
    argv = [*args, "q.txt", "r.txt"]
    ref = subprocess.run([trec_eval, *argv], cwd=tmp_path, capture_output=True, text=True)
    return ref, harness_trec_eval(*argv, cwd=tmp_path)


@pytest.mark.parametrize(
    "args",
    [
        ["-m", "P.5", "-m", "P.10"],  # the harness took the last parameters: P_10
        ["-m", "P.10", "-m", "P.5,7"],
        ["-m", "P", "-m", "P.5", "-m", "P.7"],
        ["-m", "P.5", "-m", "P", "-m", "P.7"],
        ["-m", "official", "-m", "P.5", "-m", "official", "-m", "P.3"],
        ["-m", "P.5", "-m", "all_trec", "-m", "P.6"],
        ["-m", "ndcg_cut.3", "-m", "ndcg_cut.0"],  # the second -m's parameters unread: no error
        ["-m", "G.1=2", "-m", "G.1=5", "-m", "11pt_avg.0.5", "-m", "11pt_avg.0.2,0.4"],
        ["-m", "Rprec_mult.0.5", "-m", "Rprec_mult.1.5", "-m", "utility.1,1,1,1", "-m", "utility.1,2,3,4"],
    ],
)
def test_a_measure_given_parameters_twice_takes_the_first_as_trec_eval(trec_eval, tmp_path, args):
    _same_output(trec_eval, tmp_path, ["-q", *args])


@pytest.mark.parametrize(
    "args",
    [
        ["-m", "official.5"],  # the harness refused: "a group of measures takes no parameters"
        ["-m", "all_trec.5"],
        ["-m", "set.3"],
        ["-m", "official.abc"],
        ["-m", "official..5"],
        ["-m", "official.5.3"],
        ["-m", "official.5,10", "-m", "P.7"],  # the group's parameters are not P's
        ["-m", "P.7", "-m", "all_trec.5"],
        ["-m", "set.3", "-m", "set_F.0.5"],
        ["-R", "qrels_prefs", "-m", "prefs.3"],
        ["-R", "qrels_prefs", "-m", "all_prefs.2,5"],
        ["-R", "qrels_jg", "-m", "qrels_jg.3", "-m", "P_avgjg.2"],
    ],
)
def test_a_group_given_parameters_ignores_them_as_trec_eval(trec_eval, tmp_path, args):
    _same_output(trec_eval, tmp_path, ["-q", *args])


def test_a_group_given_empty_parameters_is_refused_as_by_trec_eval(trec_eval, tmp_path):
    ref, got = _both(trec_eval, tmp_path, ["-m", "official."])
    assert ref.returncode != 0 and ref.stdout == ""
    assert got.returncode == 2 and "empty parameters" in got.stderr and got.stdout == ""


@pytest.mark.parametrize("flags", [[], ["-J"], ["-M0"], ["-l2"], ["-c", "-M1"]])
@pytest.mark.parametrize(
    "levels",
    [
        "0.5,0.1",  # the harness printed 0.9167 ("all"), trec_eval 1.0000 (its loop assumes them in order)
        "1,0,0.5",
        "0.5,0.5,0.1",
        "0.9,0.2,0.6,0.1,0.0,1",
        "2,0.5",
        "0.5,-0.5",
        "1e400,0",
        "0,-1e400,0.5",
        "0.3,0.3",
    ],
)
def test_11pt_avg_over_levels_in_any_order_prints_what_trec_eval_prints(trec_eval, tmp_path, levels, flags):
    _same_output(trec_eval, tmp_path, ["-q", *flags, "-m", f"11pt_avg.{levels}", "-m", "iprec_at_recall"])


@pytest.mark.parametrize(
    "measure",
    [
        "P.99999999999999999999",  # the harness printed P_99999999999999999999: atol stops at LONG_MAX
        "P.1" + "0" * 5000,  # beyond Python's 4,300-digit int limit: "Exceeds the limit" (exit 2)
        "P.00000000000000000000000000005",
        "recall.99999999999999999999",
        "ndcg_cut.99999999999999999999",
        "map_cut.99999999999999999999",
        "success.99999999999999999999",
        "relative_P.99999999999999999999",
        "P.3000000000",
        "P.2147483648,1",
        "G.99999999999999999999=2",
        "Rprec_mult.1e30",  # the harness printed the whole %3.2f: trec_eval keeps 8 characters of it
        "Rprec_mult.1e30,1.1e30",
        "Rprec_mult.-1e30",
        "Rprec_mult.12345.678",
        "iprec_at_recall.1e30,2e30",
        "iprec_at_recall.-1234.5678",
    ],
)
def test_huge_parameters_are_named_as_trec_eval_names_them(trec_eval, tmp_path, measure):
    _same_output(trec_eval, tmp_path, ["-q", "-m", measure])


@pytest.mark.parametrize("measure", ["P.1,3000000000", "P.5,99999999999999999999", "recall.4294967301,5"])
def test_cut_offs_trec_eval_sorts_out_of_order_are_refused(trec_eval, tmp_path, measure):
    """trec_eval compares cut-offs by their difference cast to an int: 2**31 or more apart it
    may put them out of order, and then prints wrong values (P_1 2.0000 for -m P.1,3000000000)."""
    ref, got = _both(trec_eval, tmp_path, ["-m", measure])
    assert ref.returncode == 0
    assert got.returncode == 2 and "out of order" in got.stderr and "Traceback" not in got.stderr


@pytest.mark.parametrize("how", ["closed", "read-only"])
def test_a_closed_standard_output_is_a_clear_error(trec_eval, tmp_path, how):
    """`harness trec_eval Q R >&-` stopped with "internal error: AttributeError" (exit 3).
    trec_eval prints into the closed descriptor unchecked and exits 0; the harness says what
    is wrong, exit 3 (the environment), before reading anything."""
    _both(trec_eval, tmp_path, ["-m", "map"])  # writes q.txt and r.txt

    def no_stdout():
        if how == "closed":
            os.close(1)
        else:
            os.dup2(os.open(tmp_path / "q.txt", os.O_RDONLY), 1)

    argv = ["q.txt", "r.txt"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    ref = subprocess.run([trec_eval, *argv], cwd=tmp_path, stderr=subprocess.PIPE, preexec_fn=no_stdout)
    got = subprocess.run(
        [sys.executable, "-m", "harness", "trec_eval", *argv],
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=no_stdout,
    )
    assert ref.returncode == 0
    assert got.returncode == 3, got.stderr
    assert got.stderr.startswith("harness: error: standard output is closed") and "internal" not in got.stderr


@pytest.mark.parametrize("flags", [[], ["-J"], ["-l2"], ["-c", "-M1"]])
@pytest.mark.parametrize(
    "gains",
    [
        "1=1e400",
        "2=1e400",
        "0=1e400",
        "1=1e400,2=1",
        "0=-1e400,1=1e400",
        "1=-1e400",
        "1=1.7e308,2=1.7e308,0=1.7e308",  # a gain over log2(0): -0.0, summed from 0.0: 0.0000, not -0.0000
    ],
)
def test_the_sign_of_g_s_nan_is_the_binary_s(trec_eval, tmp_path, gains, flags):
    """G divides by log2(2 + cost - gains so far); with an infinite gain that is the log2 of
    -inf or of a NaN. The binary's log2 (glibc's log2@GLIBC_2.2.5) returns a NaN printed "nan"
    below 0; the harness printed "-nan" (the newer log2's NaN)."""
    _same_output(trec_eval, tmp_path, ["-q", *flags, "-m", f"G.{gains}", "-m", f"ndcg.{gains}"])


@pytest.mark.parametrize("flags", [[], ["-J"]])
@pytest.mark.parametrize(
    "measure",
    [
        "G.1=nan",  # the harness read nan, inf and hexadecimal numbers as 0; C's atof reads them
        "G.1=inf",
        "G.1=-nan",
        "G.1=0x10",
        "ndcg.1=nan",
        "ndcg.2=inf",
        "ndcg_rel.1=nan",
        "Rndcg.1=inf",
        "iprec_at_recall.0x1p-1",
        "iprec_at_recall.nan",
        "iprec_at_recall.-inf",
        "11pt_avg.nan",
        "11pt_avg.inf",
        "Rprec_mult.nan",
        "Rprec_mult.inf",
        "utility.nan,1,1,1",
        "utility.inf,1,1,1",
        "set_F.nan",
        "set_F.-inf",
        "relstring.nan",  # (long) of a NaN, or of a value beyond a long: LONG_MIN, no characters
        "relstring.inf",
        "relstring.1e400",
        "relstring.1e19",
        "relstring.0x2",
    ],
)
def test_parameters_read_as_c_s_atof_reads_them(trec_eval, tmp_path, measure, flags):
    _same_output(trec_eval, tmp_path, ["-q", *flags, "-m", measure])


@pytest.mark.parametrize("flags", [[], ["-J"], ["-M0"], ["-M2"], ["-l2"], ["-c", "-M1"]])
@pytest.mark.parametrize(
    "measure",
    [
        # levels whose cut-offs (long)(x * R + 0.9) come out of order: LONG_MIN beyond a long
        "iprec_at_recall.1e400,0.5",  # the harness printed 0.7500 for topic 1, trec_eval 1.0000
        "iprec_at_recall.0.5,nan",
        "iprec_at_recall.0,0.5,1,inf",
        "iprec_at_recall.0.5,9e18",
        "iprec_at_recall.-inf,0.2",  # -M0: -nan below a cut-off of 0 too (the harness printed 0.0000)
        "iprec_at_recall.-1,0.5",
        "11pt_avg.0.5,1e400",
        "11pt_avg.nan,0.5",
        "11pt_avg.0.5,nan",
        "11pt_avg.-1,0.5",
        "Rprec_mult.0.5,1e400",  # the harness printed 0.5000 for topic 1, trec_eval 0.0000
        "Rprec_mult.0.5,1,2,1e400",
        "Rprec_mult.0.2,nan",
        "Rprec_mult.3,9e18",
        "Rprec_mult.-1e400,0.5",
    ],
)
def test_levels_cast_out_of_order_print_what_trec_eval_prints(trec_eval, tmp_path, measure, flags):
    _same_output(trec_eval, tmp_path, ["-q", *flags, "-m", measure])


def test_the_binary_and_the_harness_agree_on_trec_eval_s_own_suite(trec_eval):
    """The oracle itself checked: the binary prints trec_eval 9.0.8's out.test.aq (all_trec,
    per topic) byte for byte, the file the harness is checked against in test_trec_eval.py."""
    suite = Path(__file__).parent / "data" / "trec_eval-9.0.8"
    r = subprocess.run(
        [trec_eval, "-m", "all_trec", "-q", "qrels.test", "results.test"], cwd=suite, capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stdout == (suite / "out.test.aq").read_text()


# ------------------------------------------------------------- -R prefs, qrels_prefs, qrels_jg
PREFS_MEASURES = (
    "prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret prefs_simp prefs_pair prefs_avgjg "
    "prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp "
    "prefs_pair_imp prefs_avgjg_imp all_prefs prefs runid num_q"
).split()
JG_MEASURES = "map_avgjg P_avgjg Rprec_mult_avgjg qrels_jg runid num_q".split()


def _run_lines(rnd: random.Random, qid: str, docs: list[str], tag: str, most: int) -> list[str]:
    out = []
    for i, d in enumerate(rnd.sample(docs, rnd.randint(1, most))):
        s = rnd.choice([1.0, 2.0, 3.5, 1.00000001, 1.00000002, round(rnd.random(), 3), rnd.random() * 40])
        out.append(f"{qid} Q0 {d} {i + 1} {s!r} {tag}\n")
    return out


def generate_other(seed: int, folder: Path) -> list[str]:
    """Judgments in one of trec_eval's other formats, a run and a command line: judgment groups
    with one sub-group (classes of equal level) or several (partial orders, now and then
    contradicting themselves, which trec_eval refuses or aborts on), levels written as 2, 2.0
    or 2.000, a negative level now and then; for qrels_jg, groups of graded qrels with -J and
    -l. The run's topics and the judged ones overlap in part."""
    rnd = random.Random(seed)
    fmt = rnd.choice(["prefs", "qrels_prefs", "qrels_jg"])
    docs = [f"d{i}" for i in range(30)] + [f"D{i}x" for i in range(8)]
    judged, run = [], []
    for t in range(rnd.randint(1, 5)):
        qid = str(rnd.choice([t, t * 10, 100 + t]))
        if t == 0 or rnd.random() < 0.85:
            for g in rnd.sample(["u1", "u2", "A", "b", "10"], rnd.randint(1, 3)):
                pool = rnd.sample(docs, rnd.randint(1, 14))
                if fmt == "qrels_jg":
                    judged += [f"{qid} {g} {d} {rnd.choice([-1, 0, 0, 1, 1, 2, 3])}\n" for d in pool]
                    continue
                levels = [0.0, 0.0, 1.0, 2.0, 3.5, 0.5] + ([-1.0] if rnd.random() < 0.2 else [])
                true = {d: rnd.choice(levels) for d in pool}
                subs = 1 if fmt == "qrels_prefs" or rnd.random() < 0.5 else rnd.randint(2, 3)
                for s in range(subs):
                    for d in pool if subs == 1 else rnd.sample(pool, rnd.randint(1, len(pool))):
                        lv = rnd.choice(levels) if subs > 1 and rnd.random() < 0.03 else true[d]
                        text = rnd.choice([f"{lv}", f"{lv:g}", f"{lv:.3f}"])
                        judged.append(f"{qid} {g} s{s} {d} {text}\n" if fmt == "prefs" else f"{qid} {g} {d} {text}\n")
        if t == 0 or rnd.random() < 0.85:
            run += _run_lines(rnd, qid, docs, f"run{t % 2}", 25)
    rnd.shuffle(judged)
    (folder / "q.txt").write_text("".join(judged))
    (folder / "r.txt").write_text("".join(run))
    flags = ["-R", fmt]
    for p, flag in ((0.5, "-q"), (0.4, "-c"), (0.3, f"-M{rnd.randint(0, 20)}"), (0.2, "-n")):
        if rnd.random() < p:
            flags.append(flag)
    if fmt == "qrels_jg":
        flags += ["-J"] if rnd.random() < 0.3 else []
        flags += [f"-l{rnd.randint(1, 3)}"] if rnd.random() < 0.3 else []
        for m in rnd.sample(JG_MEASURES, rnd.randint(1, 4)):
            if m == "P_avgjg" and rnd.random() < 0.5:
                m += "." + ",".join(str(x) for x in rnd.sample(range(1, 40), rnd.randint(1, 4)))
            elif m == "Rprec_mult_avgjg" and rnd.random() < 0.5:
                m += "." + ",".join(str(round(rnd.random() * 2, 2)) for _ in range(2))
            flags += ["-m", m]
    else:
        for m in rnd.sample(PREFS_MEASURES, rnd.randint(1, 6)):
            flags += ["-m", m]
    if rnd.random() < 0.2:
        flags += ["-Z", "z.txt"]
    return flags


REFUSED: list[int] = []


@pytest.mark.oracle(*families(PREFS_MEASURES + JG_MEASURES), by="the trec_eval binary in Anserini's fatjar")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31))
def test_other_judgments_print_what_trec_eval_prints(trec_eval, tmp_path, capsys, seed):
    """-R prefs, qrels_prefs and qrels_jg with their measures, flags and -Z, byte for byte.
    Where trec_eval stops (a document judged 0 and above 0 in one group: "Can't calculate
    measure"; a group whose sub-groups contradict each other: abort()) the harness refuses with
    a sentence. Where trec_eval reads memory past the topic's judgments (prefs_avgjg_Rnonrel
    with negative levels) the harness refuses too; those cases are counted."""
    flags = generate_other(seed, tmp_path)
    if "-Z" in flags:
        write_zscores(trec_eval, flags, tmp_path, random.Random(seed))
    ref = subprocess.run([trec_eval, *flags, "q.txt", "r.txt"], cwd=tmp_path, capture_output=True, text=True)
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        code = main(["trec_eval", *flags, "q.txt", "r.txt"])
    finally:
        os.chdir(cwd)
    out = capsys.readouterr()
    if code != 0 and "does not guess that value" in out.err:
        REFUSED.append(seed)
        return
    if ref.returncode != 0 and not (ref.returncode < 0 and "-Z" in flags):
        # nothing to evaluate, an inconsistent group (abort: a signal), 0 and above 0 in one group
        assert code != 0 and out.err.startswith("harness:") and "Traceback" not in out.err, (ref, out.err)
        if ref.returncode < 0:
            assert "must be consistent" in out.err, out.err
        return
    if ref.returncode < 0:  # -Z's searches past their tables, as above
        STOPPED.append(seed)
        return
    assert code == 0, out.err
    assert out.out == ref.stdout, (flags, (tmp_path / "q.txt").read_text(), (tmp_path / "r.txt").read_text())


@pytest.mark.parametrize(
    "args, out",
    [
        (["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"], "out.test.prefs"),
        (["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"], "out.test.qrels_prefs"),
        (["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"], "out.test.qrels_jg"),
    ],
)
def test_the_binary_prints_trec_eval_s_own_prefs_and_jg_outputs(trec_eval, args, out):
    suite = Path(__file__).parent / "data" / "trec_eval-9.0.8"
    r = subprocess.run([trec_eval, *args], cwd=suite, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == (suite / out).read_text()


@pytest.mark.parametrize(
    "measure", ["Rprec_mult_avgjg.0.5,1e400", "Rprec_mult_avgjg.nan,0.5", "Rprec_mult_avgjg.-inf,0.4,1e30"]
)
@pytest.mark.parametrize("flags", [[], ["-J"], ["-l2", "-c"]])
def test_judgment_group_levels_beyond_a_c_long_print_what_trec_eval_prints(trec_eval, measure, flags):
    """Rprec_mult_avgjg at a level whose cut-off is beyond a C long (1e400, nan, -inf) stopped
    with an internal error (OverflowError): the judgment groups had a loop of their own. They
    are Rprec_mult's kernel now, which follows trec_eval's loop over the levels."""
    suite = Path(__file__).parent / "data" / "trec_eval-9.0.8"
    args = ["-q", *flags, "-R", "qrels_jg", "-m", measure, "qrels.123", "results.test"]
    ref = subprocess.run([trec_eval, *args], cwd=suite, capture_output=True, text=True)
    got = harness_trec_eval(*args, cwd=suite)
    assert ref.returncode == 0 and got.returncode == 0, got.stderr
    assert got.stdout == ref.stdout


# harness measure -> trec_eval's name, for the per-topic comparison of harness.evaluate
EVALUATE_NAMES = {
    "AP": "map", "AP@10": "map_cut_10", "nDCG": "ndcg", "nDCG@10": "ndcg_cut_10", "P@5": "P_5",
    "P@1000": "P_1000", "R@100": "recall_100", "RR": "recip_rank", "Rprec": "Rprec", "bpref": "bpref",
    "infAP": "infAP", "11pt": "11pt_avg", "IPrec@0.5": "iprec_at_recall_0.50", "SetP": "set_P",
    "SetR": "set_recall", "SetF": "set_F", "SetAP": "set_map", "binG": "binG", "G": "G",
    "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg", "NumRet": "num_ret", "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret", "Success@1": "success_1",
}  # fmt: skip


@pytest.mark.parametrize("spec", ["bm25", "dirichlet(mu=1000)", "bm25+rm3"])
def test_the_harness_s_own_runs_evaluate_as_the_binary_evaluates_them(
    trec_eval, cranfield_index, cranfield_topics, tmp_path, capsys, spec
):
    """Runs the harness wrote (Cranfield, 225 topics, depth 1000; Dirichlet's long tie at 0,
    Anserini's tie-adjusted scores): `harness trec_eval -q -m all_trec` prints what the binary
    prints, with and without -c and -l2, and harness.evaluate's per-topic values, at trec_eval's
    4 decimals, are the binary's."""
    import harness
    from harness.engine.index import IndexOptions
    from harness.engine.search import Searcher
    from harness.formats.runs import write_run
    from harness.specs.similarity import Similarity

    from .conftest import shared_path

    qrels = shared_path("collections", "cranfield", "qrels.txt")
    searcher = Searcher(cranfield_index.path, IndexOptions())
    run = tmp_path / "run.trec"
    write_run(run, searcher.search_run(cranfield_topics, Similarity.parse(spec), 1000), "harness")
    searcher.close()
    for flags in ([], ["-c"], ["-c", "-l2"]):
        args = ["-q", "-m", "all_trec", *flags, str(qrels), str(run)]
        ref = subprocess.run([trec_eval, *args], capture_output=True, text=True)
        assert ref.returncode == 0, ref.stderr
        assert main(["trec_eval", *args]) == 0
        assert capsys.readouterr().out == ref.stdout, flags
        values = {tuple(line.split()[:2]): line.split()[2] for line in ref.stdout.splitlines()}
        rel = "(rel=2)" if "-l2" in flags else ""
        asked = [m + (rel if m not in ("nDCG", "nDCG@10", "G", "ndcg_rel", "NumRet") else "") for m in EVALUATE_NAMES]
        per, _ = harness.evaluate(run, qrels, asked, missing_topics="zero" if "-c" in flags else "drop")
        canonical = list(dict.fromkeys(per.measure))
        assert len(canonical) == len(EVALUATE_NAMES)
        for measure, ours in zip(canonical, EVALUATE_NAMES.values(), strict=True):
            rows = per[per.measure == measure]
            for qid, value in zip(rows.qid, rows.value, strict=True):
                text = str(int(value)) if ours.startswith("num_") else f"{value:.4f}"
                assert text == values[(ours, str(qid))], (flags, measure, qid)
