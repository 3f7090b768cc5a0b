"""Forms learned from the store's own facts: a line no rule reads ("Kai reports to the Quito site
daily.") is read once lines in the same words were seen stating known values of one slot for
other subjects. What is learned, what is refused (a form two slots share, a form whose lines
mostly name other values, a form of function words only), and, end to end on each backend, the
value it reads, the switch that turns it off, what a reopened store still knows, and an erasure
that drops what was learned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from deltacore.belief.forms import FormBook

TS = datetime(2026, 6, 1, tzinfo=UTC)
NOW = datetime.now(UTC)


def _event(text: str, actor: str = "desk"):
    return SimpleNamespace(text=text, actor=actor, user_id=None, confidence=1.0, ts=TS)


def _observe(book: FormBook, text: str, current: dict, actor: str = "desk"):
    return [(c.subject, c.attribute, c.value) for c in book.observe("t", _event(text, actor), current, unread=True)]


CURRENT = {
    "marie": {"work city": "Seoul", "home city": "Paris"},
    "aaron": {"work city": "Lima", "home city": "Lima"},
    "noor": {"work city": "Accra", "home city": "Oslo"},
    "kai": {"work city": "Oslo", "home city": "Rome"},
}


def test_a_form_seen_for_two_subjects_reads_a_third():
    book = FormBook(min_support=2)
    assert _observe(book, "Marie reports to the Seoul site daily.", CURRENT) == []
    assert _observe(book, "Kai reports to the Quito site daily.", CURRENT) == []  # one subject: not yet sure
    assert _observe(book, "Noor reports to the Accra site daily.", CURRENT) == []
    assert _observe(book, "Kai reports to the Quito site daily.", CURRENT) == [("kai", "work city", "Quito")]
    assert book.forms("t") == [("work city", "{S} reports to the {V} site daily .")]


def test_the_speaker_in_the_first_person_is_the_subject():
    book = FormBook(min_support=2)
    _observe(book, "I'm based at the Seoul site these days.", CURRENT, actor="Marie")
    _observe(book, "I'm based at the Accra site these days.", CURRENT, actor="Noor")
    assert _observe(book, "I'm based at the Quito site these days.", CURRENT, actor="Kai") == [("kai", "work city", "Quito")]
    assert _observe(book, "I'm based at the Quito site these days.", CURRENT, actor="Stranger") == []  # no such subject


def test_a_thing_named_by_its_place_is_one_subject_in_any_order():
    book = FormBook(min_support=2)
    current = {
        "reach truck north yard": {"status": "awaiting parts"},
        "dock leveller south yard": {"status": "in service"},
        "pallet wrapper south yard": {"status": "in service"},
    }
    _observe(book, "Walked past the reach truck on the North Yard, it's awaiting parts.", current)
    _observe(book, "Walked past the South Yard dock leveller, it's in service.", current)
    assert _observe(book, "Walked past the pallet wrapper (South Yard), it's tagged out.", current) == [
        ("pallet wrapper south yard", "status", "tagged out")
    ]


def test_what_is_not_learned():
    book = FormBook(min_support=2)
    # Aaron's home and work city are both Lima: the line could state either, so it teaches nothing.
    _observe(book, "Aaron is around Lima today.", CURRENT)
    assert not book.forms("t", confirmed=False)
    # Nothing but function words and punctuation around the subject and the value.
    _observe(book, "Marie: Seoul", CURRENT)
    _observe(book, "Noor: Accra", CURRENT)
    assert not book.forms("t", confirmed=False)


def test_a_form_two_slots_share_or_whose_lines_name_other_values_is_not_read():
    book = FormBook(min_support=2)
    _observe(book, "Marie is hiking near Seoul this weekend.", CURRENT)  # a work city, by chance
    _observe(book, "Noor is hiking near Accra this weekend.", CURRENT)
    for place in ("Bergen", "Turin", "Cork"):  # mostly it names somewhere else
        _observe(book, f"Kai is hiking near {place} this weekend.", CURRENT)
    assert _observe(book, "Marie is hiking near Quito this weekend.", CURRENT) == []
    book = FormBook(min_support=2)
    _observe(book, "Marie is flying to Seoul.", CURRENT)  # work city
    _observe(book, "Noor is flying to Oslo.", CURRENT)  # home city
    _observe(book, "Kai is flying to Oslo.", CURRENT)  # work city
    assert _observe(book, "Marie is flying to Quito.", CURRENT) == []


def _say(memory, text, days, source="user:desk"):
    return memory.add(text, ts=NOW - timedelta(days=days), source=source)


def _sites(memory):
    for i, (who, city) in enumerate([("Marie", "Seoul"), ("Aaron", "Lima"), ("Kai", "Oslo"), ("Noor", "Accra")]):
        _say(memory, f"{who}'s work city is {city}.", 120 - i)
    _say(memory, "Marie reports to the Seoul site daily.", 90)
    _say(memory, "Aaron reports to the Lima site daily.", 80)


def test_a_line_in_a_learned_form_states_the_new_value(memory):
    _sites(memory)
    line = _say(memory, "Kai reports to the Quito site daily.", 10)
    history = {f.value: f.status for f in memory.history("kai", "work city")}
    assert history["Quito"] == "current" and history["Oslo"] == "superseded"
    assert memory.query("Which city does Kai work in?", top_k=3)[0].id == line


def test_without_learned_forms_the_line_states_nothing(backend):
    memory = backend.open(belief={"form_support": 0})
    try:
        _sites(memory)
        _say(memory, "Kai reports to the Quito site daily.", 10)
        assert [f.value for f in memory.history("kai", "work city")] == ["Oslo"]
    finally:
        memory.close()


def test_what_was_learned_is_kept_when_the_store_is_reopened(backend):
    memory = backend.open()
    try:
        _sites(memory)
    finally:
        memory.close()
    reopened = backend.open()
    try:
        _say(reopened, "Kai reports to the Quito site daily.", 10)
        assert {f.value: f.status for f in reopened.history("kai", "work city")}["Quito"] == "current"
    finally:
        reopened.close()


def test_an_erasure_drops_what_was_learned(memory):
    _sites(memory)
    memory.forget("Marie")
    memory.forget("Aaron")
    # The form came from their lines: it is gone, and one more subject's line starts it again.
    _say(memory, "Kai reports to the Quito site daily.", 10)
    assert [f.value for f in memory.history("kai", "work city")] == ["Oslo"]
