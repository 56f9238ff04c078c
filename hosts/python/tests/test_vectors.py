"""Every shared conformance vector, one pytest test each."""

import pytest

import conformance

CASES = conformance.load_cases()


def test_the_vectors_are_there():
    # An emptied or unreadable vector directory must not pass by running nothing.
    assert len(CASES) >= 40
    names = [case["name"] for _, case in CASES]
    assert len(names) == len(set(names)), "case names must be unique"


@pytest.mark.parametrize(
    "case", [case for _, case in CASES], ids=[f"{file}::{case['name']}" for file, case in CASES]
)
def test_vector(case):
    conformance.run_case(case)
