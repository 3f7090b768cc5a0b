"""A question about one fact slot is answered by the memory stating the slot's value at the
asked time, even when ordinary retrieval ranks other memories first."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from deltacore.belief.questions import question_slot, slot_holding, subject_keys

NOW = datetime.now(timezone.utc)
SLOTS = [
    ("anna", "home city"), ("anna", "work city"), ("anna", "employer"),
    ("ana", "home city"), ("ana", "job title"), ("billing staging", "status"), ("billing", "owner"),
    ("billing production", "version"),
]


@pytest.mark.parametrize(
    ("question", "slot"),
    [
        ("Where does Anna live now?", ("anna", "home city")),
        ("Which city does Anna work in these days?", ("anna", "work city")),
        ("Who does Anna work for?", ("anna", "employer")),
        ("Where is Ana based?", ("ana", "home city")),
        ("What is Ana's role?", ("ana", "job title")),
        ("What's the status of billing staging?", ("billing staging", "status")),
        ("Who owns billing?", ("billing", "owner")),
        # The environment qualifies the subject wherever it stands in the question...
        ("Which version of billing runs in production?", ("billing production", "version")),
        ("What was the status of billing in staging on 2026-03-01?", ("billing staging", "status")),
        # ...and a deployment without the asked attribute does not hide its service's.
        ("Who owns billing in staging?", ("billing", "owner")),
        # Idioms of the same attributes.
        ("Which group looks after billing these days?", ("billing", "owner")),
        ("Who is Anna on staff at these days?", ("anna", "employer")),
    ],
)
def test_a_question_names_its_slot(question, slot):
    assert question_slot(question, SLOTS) == slot


@pytest.mark.parametrize(
    "question",
    [
        "Where does Hanna live?",  # a subject the store does not know
        "What did Anna say yesterday?",  # no attribute cue
        "Where does Ana work?",  # Ana has no work slot; nothing else fits
        "What is the status of billing in production?",  # only staging's status is known
        "What about Anna's work?",  # work city or employer? no cue says which: unsure
    ],
)
def test_unsure_questions_name_no_slot(question):
    assert question_slot(question, SLOTS) is None


def test_subject_keys_keep_look_alikes_apart():
    keys = subject_keys("Where does Anna live?")
    assert "anna" in keys and "ana" not in keys


def test_the_current_value_leads_over_louder_memories(memory):
    memory.add("Anna lives in Lisbon", ts=NOW - timedelta(days=90), source="user:anna")
    for n in range(5):  # newer, unrelated memories that share the question's words
        memory.add(f"Anna said the weather where she lives is nice, day {n}", ts=NOW - timedelta(days=n))
    current = memory.add("Anna moved to Berlin", ts=NOW - timedelta(days=10), source="user:anna")
    memory.add("Ana lives in Madrid", ts=NOW - timedelta(days=2), source="user:ana")

    top = memory.query("Where does Anna live now?", top_k=5)[0]
    assert top.id == current


def test_as_of_and_before_pick_the_earlier_value(memory):
    lisbon = memory.add("Anna lives in Lisbon", ts=NOW - timedelta(days=90), source="user:anna")
    memory.add("Anna moved to Berlin", ts=NOW - timedelta(days=3), source="user:anna")

    assert memory.query("Where did Anna live?", as_of=NOW - timedelta(days=30), top_k=3)[0].id == lisbon
    assert memory.query("Where did Anna live before Berlin?", top_k=3)[0].id == lisbon


def test_a_question_names_a_thing_by_where_it_is():
    slots = [("fume hood upstairs lab", "status"), ("fume hood downstairs lab", "status"), ("fume hood upstairs lab", "custodian")]
    assert question_slot("What is the status of the fume hood in the upstairs lab now?", slots) == ("fume hood upstairs lab", "status")
    assert question_slot("Who is the custodian of the fume hood in the downstairs lab?", slots) is None  # no such slot
    assert "fume hood downstairs lab" in subject_keys("Is the fume hood in the downstairs lab on hold?")


DRIVERS = [
    ("dariusz", "main route"), ("dariusz", "backup route"), ("dariusz", "van"), ("dariusz", "home city"),
    ("denis", "main route"), ("denis", "van"),
    ("reach truck north yard", "status"), ("reach truck north yard", "next thorough exam"),
    ("reach truck north yard", "responsible person"), ("felixstowe run", "planned departure"),
    ("felixstowe run", "carrier"), ("felixstowe run", "lead driver"), ("reach truck", "maintenance contractor"),
]


@pytest.mark.parametrize(
    ("question", "slot"),
    [
        # The slot's name in other words: a sense in the lexicon, a derivation, the thing's kind.
        ("What is Dariusz's primary route now?", ("dariusz", "main route")),
        ("Which relief route does Dariusz cover now?", ("dariusz", "backup route")),
        ("Which vehicle does Denis drive now?", ("denis", "van")),
        ("What time does the Felixstowe run depart now?", ("felixstowe run", "planned departure")),
        ("Which haulier runs the Felixstowe run now?", ("felixstowe run", "carrier")),
        # Part of the name is enough when no other slot has as much of it.
        ("Who is responsible for the reach truck on the North Yard now?", ("reach truck north yard", "responsible person")),
        ("When is the reach truck on the North Yard next due for inspection?", ("reach truck north yard", "next thorough exam")),
        # The subject said in the plural is still the subject, not one more word of the question.
        ("Which contractor maintains the reach trucks now?", ("reach truck", "maintenance contractor")),
    ],
)
def test_a_question_names_its_slot_in_its_own_words(question, slot):
    held = {"responsible person": "Kerry Lockhart", "next thorough exam": "4.3.2027", "status": "in service",
            "planned departure": "04:20", "carrier": "Kinross Logistics"}
    assert question_slot(question, DRIVERS, values=lambda subject: held) == slot


def test_a_modifier_alone_names_a_slot_only_with_a_value_of_the_shape_asked_for():
    question = "Who is responsible for the reach truck on the North Yard now?"
    assert question_slot(question, DRIVERS, values=lambda subject: {"responsible person": "in service"}) is None


@pytest.mark.parametrize(
    "question",
    [
        # "relief route" is no "main route", though both are routes: the look-alike is not guessed.
        "Which relief route does Denis cover now?",
        # Only part of two names each: unsure.
        "Which route does Dariusz drive?",
    ],
)
def test_a_differently_qualified_name_is_no_slot(question):
    assert question_slot(question, DRIVERS) is None


def test_the_shape_of_the_value_asked_for_picks_the_one_slot_of_that_shape():
    slots = [("falcon", "kickoff"), ("falcon", "sponsor"), ("falcon", "budget code")]
    held = {"kickoff": "4.3.2027", "sponsor": "Priya Shah", "budget code": "BC-7731"}
    assert question_slot("When does Falcon start?", slots, values=lambda subject: held) == ("falcon", "kickoff")
    # Without the values nothing says which slot "start" is.
    assert question_slot("When does Falcon start?", slots) is None


def test_a_thing_on_or_at_a_place_is_named_by_it():
    assert "reach truck north yard" in subject_keys("Who is responsible for the reach truck on the North Yard?")
    assert "weighbridge south gate" in subject_keys("Is the weighbridge at the South Gate working?")


def test_a_question_in_its_own_words_gets_the_current_value_first(memory):
    old = '{"asset_tag": "North Yard/reach truck", "site": "North Yard", "props": {"responsible_person": "Kerry"}}'
    new = '{"asset_tag": "North Yard/reach truck", "site": "North Yard", "props": {"responsible_person": "Idris"}}'
    other = '{"asset_tag": "South Yard/reach truck", "site": "South Yard", "props": {"responsible_person": "Graeme"}}'
    memory.add(old, kind="tool_result", tool_name="cmms.get_asset", ts=NOW - timedelta(days=60), source="tool:cmms")
    current = memory.add(new, kind="tool_result", tool_name="cmms.get_asset", ts=NOW - timedelta(days=5), source="tool:cmms")
    memory.add(other, kind="tool_result", tool_name="cmms.get_asset", ts=NOW - timedelta(days=1), source="tool:cmms")
    for n in range(5):  # louder memories sharing the question's words
        memory.add(f"Kerry says the reach truck on the North Yard needs a wash, day {n}", ts=NOW - timedelta(days=n))

    top = memory.query("Who is responsible for the reach truck on the North Yard now?", top_k=5)[0]
    assert top.id == current
    assert [f.value for f in memory.facts("reach truck on the North Yard", "responsible person")] == ["Idris"]


@pytest.mark.parametrize(
    "question",
    [
        "Why did Gina open her clothing store?",  # a reason, not the slot's value
        "How did Gina promote her clothing store?",  # a manner
        "When is Tim attending a book conference?",  # "book" qualifies another noun
        "When did Gina open her online clothing store?",  # a date, and the slot holds a name
    ],
)
def test_a_question_that_only_mentions_a_slots_name_asks_no_slot(question):
    slots = [("gina", "online clothes store"), ("tim", "favorite book"), ("tim", "book")]
    held = {"online clothes store": "Gina's Closet", "favorite book": "Dune", "book": "Dune"}
    assert question_slot(question, slots, values=lambda subject: held) is None


@pytest.mark.parametrize(
    "question",
    [
        "What books has Tim read?",  # many books; the slot holds one
        "What did Gina find for her online clothing store?",  # the store is not what is asked
        "What book did Tim get in Italy that inspired him to cook?",  # the head alone, among other words
    ],
)
def test_a_slots_name_said_as_something_else_is_no_slot(question):
    slots = [("gina", "online clothes store"), ("tim", "favorite book")]
    held = {"online clothes store": "Gina's Closet", "favorite book": "Dune"}
    assert question_slot(question, slots, values=lambda subject: held) is None
    assert question_slot("What is Tim's favorite book now?", slots, values=lambda subject: held) == ("tim", "favorite book")


def test_a_question_about_a_kind_of_thing_in_the_plural_names_its_slot():
    slots = [("reach truck", "contractor"), ("reach truck north yard", "status")]
    assert question_slot("Which contractor maintains the reach trucks now?", slots) == ("reach truck", "contractor")
    assert "reach truck" in subject_keys("Who services our reach trucks?")
    assert "bus" in subject_keys("Which depot is the bus at?")  # no singular of a word ending in -us


def test_how_someone_gets_to_work_asks_their_commute_and_dental_care_their_dentist():
    slots = SLOTS + [("anna", "commute"), ("anna", "dentist")]
    assert question_slot("How does Anna get to work these days?", slots) == ("anna", "commute")
    assert question_slot("Who does Anna see for dental care now?", slots) == ("anna", "dentist")
    assert question_slot("Which city does Anna work in these days?", slots) == ("anna", "work city")


def test_before_a_named_value_finds_the_slot_that_held_it_when_the_words_name_none(memory):
    # "set up on" names no slot of Noor's; the value it names, Atlas, was only ever her team.
    orion = memory.add("Noor's team is Orion.", ts=NOW - timedelta(days=90), source="user:hr")
    memory.add("Noor's team is Atlas.", ts=NOW - timedelta(days=10), source="user:hr")
    memory.add("Noor's home city is Lisbon.", ts=NOW - timedelta(days=50), source="user:hr")
    assert memory.query("What was Noor set up on before Atlas?", top_k=3)[0].id == orion


def test_a_value_two_slots_held_names_no_slot():
    held = {("anna", "home city"): ["lisbon", "berlin"], ("anna", "work city"): ["berlin"], ("anna", "employer"): ["acme"]}
    assert slot_holding("Where was Anna before Berlin?", held) is None
    assert slot_holding("Where was Anna before Lisbon?", held) == ("anna", "home city")
    assert slot_holding("What did Anna do before Acme?", held) == ("anna", "employer")
    assert slot_holding("What did Anna do before Paris?", held) is None


def test_a_place_with_a_name_of_its_own_needs_no_article():
    slots = [("smoke alarm flat a", "network"), ("smoke alarm flat b", "network"), ("smoke alarm flat a", "connection")]
    assert "smoke alarm flat a" in subject_keys("Which Wi-Fi network is the smoke alarm in Flat A joined to now?")
    assert question_slot("Which Wi-Fi network is the smoke alarm in Flat B joined to now?", slots) == ("smoke alarm flat b", "network")
    # a lower-case word after "in" is no place's name
    assert "smoke alarm flat" not in subject_keys("Is the smoke alarm in flat mode?")


@pytest.mark.parametrize(
    ("question", "slot"),
    [
        ("Which runtime does thumbnailer in stable execute on these days?", ("thumbnailer stable", "runtime env")),
        ("Which phase is the Albatross effort in these days?", ("albatross", "phase name")),
        ("Which vehicle does Mihail drive now?", ("mihail", "vehicle reg")),
        ("Which editor does Cleo write code in these days?", ("cleo", "editor of choice")),
    ],
)
def test_a_record_keys_spelling_suffix_is_not_what_a_question_must_say(question, slot):
    slots = [("thumbnailer stable", "runtime env"), ("thumbnailer stable", "tag"), ("albatross", "phase name"),
             ("albatross", "champion name"), ("mihail", "vehicle reg"), ("mihail", "home depot"),
             ("cleo", "editor of choice"), ("cleo", "work city")]
    assert question_slot(question, slots) == slot
