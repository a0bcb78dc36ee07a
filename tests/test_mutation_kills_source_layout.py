"""How the compiler lays out the Python it writes (library/compiler/source.py, whose mutants
survive where no test pins a layout, bench/mutation.py, seed 10): ``ruff format``'s layout,
100 columns, one argument a line with a trailing comma when a call does not fit, nested calls
broken from the outside in; a call written as text is split into its arguments (positional
ones alone, keyword ones alone, or both, in source order) unless it holds a sole generator;
docstrings are Google style, one line when they fit, the summary wrapped, ``Args:`` and
``Returns:`` sections below it, and spec prose escaped so it cannot close the docstring."""

from __future__ import annotations

import ast

import pytest

from library.compiler.source import (
    INDENT,
    WIDTH,
    Call,
    as_call,
    call,
    comment_block,
    docstring,
    escape_doc,
    render,
)

LONG = "x" * 40


def test_a_call_fits_on_one_line_or_takes_one_argument_a_line() -> None:
    assert call("f", ["a", "b"], 1) == ["    f(a, b)"]
    assert call("f", ["a"], 0, suffix=":") == ["f(a):"]
    assert call("f", [], 2) == ["        f()"]
    lines = call("check", [LONG, LONG, LONG], 1, suffix=",")
    assert lines == ["    check(", *[f"        {LONG}," for _ in range(3)], "    ),"]
    # exactly WIDTH columns still fits
    arg = "y" * (WIDTH - len("    f()"))
    assert call("f", [arg], 1) == [f"    f({arg})"]
    assert len(call("f", [arg + "y"], 1)) == 3


def test_a_call_expression_is_flat_with_keywords_brackets_and_one_element_tuples() -> None:
    assert Call("f", [(None, "a"), ("b", "2")]).flat() == "f(a, b=2)"
    assert Call("", [(None, "1"), (None, "2")], brackets="[]").flat() == "[1, 2]"
    assert Call("", [(None, "1")]).flat() == "(1,)"  # a tuple of one
    assert Call("", [(None, "1")], brackets="[]").flat() == "[1]"
    assert Call("f", [(None, "1")]).flat() == "f(1)"
    assert Call("", [], brackets="[]").flat() == "[]"
    assert Call("f", [(None, Call("g", [("x", "1")]))]).flat() == "f(g(x=1))"


def test_render_breaks_nested_calls_from_the_outside_in() -> None:
    inner = Call("Inner", [("value", LONG)])
    outer = Call("Outer", [("first", inner), ("second", LONG), (None, "rest")])
    assert render(Call("f", [(None, "a")]), 2, "x = ", ",") == ["        x = f(a),"]
    assert render(outer, 1, "item = ") == [
        "    item = Outer(",
        f"        first=Inner(value={LONG}),",
        f"        second={LONG},",
        "        rest,",
        "    )",
    ]
    deep = Call("Outer", [("first", Call("Inner", [("a", LONG), ("b", LONG)])), ("c", LONG)])
    assert render(deep, 0, suffix=",") == [
        "Outer(",
        "    first=Inner(",
        f"        a={LONG},",
        f"        b={LONG},",
        "    ),",
        f"    c={LONG},",
        "),",
    ]
    listed = Call("", [(None, LONG), (None, LONG), (None, LONG)], brackets="[]")
    assert render(listed, 1, "xs = ") == [
        "    xs = [",
        *[f"        {LONG}," for _ in range(3)],
        "    ]",
    ]


def test_render_splits_a_call_written_as_text_and_leaves_other_text_whole() -> None:
    text = f"fit_text(pattern_or({LONG}, 1), 1, {LONG})"
    assert render(text, 1) == [
        "    fit_text(",
        f"        pattern_or({LONG}, 1),",
        "        1,",
        f"        {LONG},",
        "    )",
    ]
    plain = " + ".join([LONG] * 3)
    assert render(plain, 1) == [f"    {plain}"]  # too long, but no call to split
    assert render("f(a)", 0) == ["f(a)"]
    exact = f"f({'z' * (WIDTH - 4 - 3)})"  # exactly WIDTH columns with its pad
    assert render(exact, 1) == [f"    {exact}"]
    assert len(render(exact[:2] + "z" + exact[2:], 1)) == 3


@pytest.mark.parametrize(
    ("text", "head", "args"),
    [
        ("f(a, b)", "f", [(None, "a"), (None, "b")]),
        ("f(x=1)", "f", [("x", "1")]),
        ("pool.pick(rng, k=2)", "pool.pick", [(None, "rng"), ("k", "2")]),
        (
            "f(a, *rest, key=g(1), **more)",
            "f",
            [(None, "a"), (None, "*rest"), ("key", "g(1)"), (None, "**more")],
        ),
        (
            "f(a, [1, 2], {'k': (3, 4)})",
            "f",
            [(None, "a"), (None, "[1, 2]"), (None, "{'k': (3, 4)}")],
        ),
        ('f("x, y")', "f", [(None, '"x, y"')]),
        ("f(key=1, *rest)", "f", [("key", "1"), (None, "*rest")]),  # in source order
    ],
)
def test_a_call_written_as_text_is_its_head_and_each_arguments_text(
    text: str, head: str, args: list
) -> None:
    found = as_call(text)
    assert found == Call(head, args), found


@pytest.mark.parametrize(
    "text",
    ["f()", "x + 1", "name", "f(x for x in y)", "f(a,\n b)", "f(", "[f(1)]", "a.b"],
)
def test_other_text_is_no_call_to_split(text: str) -> None:
    assert as_call(text) is None


def test_spec_prose_is_escaped_so_it_cannot_close_the_docstring() -> None:
    assert escape_doc('say """hi""" now') == 'say \\"\\"\\"hi\\"\\"\\" now'
    assert escape_doc("a\\b") == "a\\\\b"
    assert escape_doc('ends with "quote"') == 'ends with "quote" '
    assert escape_doc("plain") == "plain"


def test_a_docstring_is_one_line_when_it_fits() -> None:
    assert docstring("Lists notes.", 2) == ['        """Lists notes."""']
    assert docstring("", 1) == ['    """(no description)"""']
    exact = "q" * (WIDTH - 8 - 6)  # the line is exactly WIDTH columns
    assert docstring(exact, 2) == [f'        """{exact}"""']
    assert len(docstring(exact + "q", 2)) == 2
    # one line too long for the closing quotes: two lines, never a lone closing quote
    summary = "w" * (WIDTH - 8 - 6 + 1)
    lines = docstring(" ".join([summary[:40], summary[40:]]), 2)
    assert lines[0].startswith('        """') and lines[-1] == '        """'
    assert all(len(line) <= WIDTH for line in lines)


def test_a_docstring_wraps_its_summary_and_lists_args_and_returns() -> None:
    summary = "Finds the notes. " * 8
    lines = docstring(summary, 1, [("title", "The title."), ("tags", "")], "The notes.")
    body = [line.strip() for line in lines]
    assert lines[0].startswith('    """Finds the notes.')
    assert all(len(line) <= WIDTH for line in lines)
    assert body[body.index("Args:") :] == [
        "Args:",
        "title: The title.",
        "tags: -",
        "",
        "Returns:",
        "The notes.",
        '"""',
    ]
    assert lines[-1] == '    """'
    assert lines[body.index("Args:")] == "    Args:"
    assert lines[body.index("Args:") + 1] == "        title: The title."
    ast.parse("def f():\n" + "\n".join(lines) + "\n    pass")


def test_a_docstring_arg_wraps_under_its_name_and_keeps_paragraphs() -> None:
    prose = " ".join(["word"] * 40)
    lines = docstring("Sum.\n\nMore detail.\nArgs:", 1, [("value", prose)])
    assert lines[:4] == ['    """Sum.', "", "    More detail.", "    Args -"]
    arg = lines[lines.index("    Args:") + 1 :]
    assert arg[0].startswith("        value: word word")
    assert all(line.startswith(INDENT * 3) and line[12] != " " for line in arg[1:-1]), arg
    assert " ".join(line.strip() for line in arg[:-1]) == f"value: {prose}"


def test_a_comment_block_wraps_within_the_width() -> None:
    text = " ".join(["comment"] * 30)
    lines = comment_block(text, 2)
    assert all(line.startswith("        # ") and len(line) <= WIDTH for line in lines)
    assert " ".join(line[10:] for line in lines) == text
    assert comment_block("Short.\n\nSecond.", 0) == ["# Short.", "# ", "# Second."]
