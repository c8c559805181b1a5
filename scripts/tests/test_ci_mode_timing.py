"""Unit tests of the CI-mode timing script's pure parts. Run: python3 -m unittest discover -s scripts/tests"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from ci_mode_timing import check, make_fixture  # noqa: E402


class FixtureTests(unittest.TestCase):
    def test_fixture_holds_the_asked_number_of_distinct_objects(self):
        fixture = make_fixture(1000)
        todos = fixture["environments"]["development"]["objects"]["todo"]
        self.assertEqual(len(todos), 1000)
        self.assertEqual(len({todo["todo_id"] for todo in todos}), 1000)

    def test_fixture_declares_every_field_its_objects_use(self):
        development = make_fixture(3)["environments"]["development"]
        declared = set(development["schemas"]["todo"]["fields"]) | {"todo_id"}
        for todo in development["objects"]["todo"]:
            self.assertLessEqual(set(todo), declared)

    def test_users_carry_plain_passwords_and_an_operator_exists(self):
        fixture = make_fixture(0)
        self.assertIn("password", fixture["environments"]["development"]["users"][0])
        self.assertTrue(fixture["operators"])


class BoundTests(unittest.TestCase):
    def test_a_figure_over_its_bound_fails_and_one_under_passes(self):
        results = []
        self.assertTrue(check("fast", 0.5, 1.0, results))
        self.assertFalse(check("slow", 1.5, 1.0, results))
        self.assertEqual([passed for *_, passed in results], [True, False])


if __name__ == "__main__":
    unittest.main()
