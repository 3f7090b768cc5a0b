"""The third template set, ``fresh``: a held-out world written after the engine had been tuned
against ``tune`` and read against ``heldout``.

It shares no phrasing, JSON shape, name or value with the other two, and it changes the world's
make-up as well as its words: people carry a team and a manager instead of a language and a role,
deployments a database instead of a region, projects a launch date and a sponsor instead of a
deadline and a lead; tool results are entity-attribute-value records and ``service/stage`` target
strings; dates read "March 4, 2026"; versions "rel-512". Its random stream is seeded apart from
the other sets (``SEED_SALT``). Nobody tuning the engine looks at what this set produces: it is
run for the report only.
"""

from __future__ import annotations

from typing import Any

SEED_SALT = "fresh-2026-12"
"""Mixed into the world's seed, so the fresh world draws from another random stream."""

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("home_city", "work_city", "employer", "team", "manager"),
    "deployment": ("status", "version", "database"),
    "service": ("owner",),
    "team": ("oncall",),
    "project": ("launch_date", "sponsor", "project_status"),
}

ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

T: dict[str, dict[str, list[str]]] = {}
T["home_city"] = {
    "state": ["{s}'s place is in {v}.", "{s} is a {v} local.", "The home address of {s} is in {v}."],
    "change": ["{s} bought a house in {v} and lives there now.", "After the move, {s} now lives in {v}."],
    "first_state": ["My place is in {v}.", "I've been living in {v} for a while."],
    "first_change": ["Moving day is over, my new home is {v}.", "Just signed the lease on a place in {v}."],
    "correction": ["Small fix: {s}'s home is {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {s} has been living in {v}."],
    "q_current": ["What is {s}'s home city today?"],
    "q_as_of": ["In what city did {s} have a home on {date}?"],
    "q_history": ["Which city was {s}'s home until {v}?"],
}
T["work_city"] = {
    "state": ["{s} badges into the {v} branch.", "{s} is based at the {v} branch for work."],
    "change": ["{s} now commutes to the {v} branch instead.", "{s}'s work location was changed to {v}."],
    "first_state": ["I work at the {v} branch.", "My work location is {v}."],
    "first_change": ["From Monday I'm at the {v} branch.", "They moved my work location to {v}."],
    "correction": ["Small fix: {s}'s work location is {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {s} has worked at the {v} branch."],
    "q_current": ["What is the work location of {s} today?"],
    "q_as_of": ["What was the work location of {s} on {date}?"],
    "q_history": ["What was the work location of {s} until {v}?"],
}
T["employer"] = {
    "state": ["{s} is an employee of {v}.", "{s} gets a paycheck from {v}."],
    "change": ["{s} quit and was hired by {v}.", "{s} is now an employee of {v} after switching jobs."],
    "first_state": ["I'm an employee of {v}.", "I get my paycheck from {v}."],
    "first_change": ["I was hired by {v}, first day tomorrow.", "New employer for me: {v}."],
    "correction": ["Small fix: {s}'s employer is {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {s} has been an employee of {v}."],
    "q_current": ["Which firm is {s} an employee of today?"],
    "q_as_of": ["Which firm was {s} an employee of on {date}?"],
    "q_history": ["Which firm employed {s} until {v}?"],
}
T["team"] = {
    "state": ["{s} is a member of the {v}.", "{s} sits with the {v}."],
    "change": ["{s} was moved to the {v}.", "{s} rotated into the {v}."],
    "first_state": ["I'm a member of the {v}.", "I sit with the {v}."],
    "first_change": ["I rotated into the {v} this sprint.", "I was moved to the {v}."],
    "correction": ["Small fix: {s}'s team is the {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {s} has been a member of the {v}."],
    "q_current": ["Which group is {s} a member of today?"],
    "q_as_of": ["Which group was {s} a member of on {date}?"],
    "q_history": ["Which group was {s} a member of until the {v}?"],
}
T["manager"] = {
    "state": ["{s} reports to {v}.", "{s}'s manager is {v}."],
    "change": ["{s} has a new manager, {v}.", "{s} now reports to {v}."],
    "first_state": ["I report to {v}.", "My manager is {v}."],
    "first_change": ["My new manager is {v}.", "I report to {v} starting today."],
    "correction": ["Small fix: {s}'s manager is {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {s} has reported to {v}."],
    "q_current": ["Who is {s}'s manager today?"],
    "q_as_of": ["Who was {s}'s manager on {date}?"],
    "q_history": ["Who was {s}'s manager until {v}?"],
}
T["status"] = {
    "state": ["Monitoring shows {svc} on {env} as {v}.", "{svc} on {env}: state {v}."],
    "change": ["Pager: {svc} on {env} went {v}.", "Dashboard update, {svc} on {env} is {v} now."],
    "correction": ["Small fix: {svc} on {env} is {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {svc} on {env} has been {v}."],
    "q_current": ["What state is {svc} on {env} in today?"],
    "q_as_of": ["What state was {svc} on {env} in on {date}?"],
    "q_history": ["What state was {svc} on {env} in until it went {v}?"],
}
T["version"] = {
    "state": ["{svc} on {env} is running {v}.", "{env} currently serves {svc} {v}."],
    "change": ["Shipped {v} of {svc} on {env}.", "{svc} on {env} got bumped to {v}."],
    "correction": ["Small fix: {svc} on {env} is running {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {svc} on {env} has been running {v}."],
    "q_current": ["Which release of {svc} is on {env} today?"],
    "q_as_of": ["Which release of {svc} was on {env} on {date}?"],
    "q_history": ["Which release of {svc} was on {env} until {v}?"],
}
T["database"] = {
    "state": ["{svc} on {env} stores its data in {v}.", "The database behind {svc} on {env} is {v}."],
    "change": ["{svc} on {env} was ported to {v}.", "{svc} on {env} switched its database to {v}."],
    "correction": ["Small fix: the database of {svc} on {env} is {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {svc} on {env} has stored its data in {v}."],
    "q_current": ["Which database does {svc} on {env} use today?"],
    "q_as_of": ["Which database did {svc} on {env} use on {date}?"],
    "q_history": ["Which database did {svc} on {env} use until {v}?"],
}
T["owner"] = {
    "state": ["{svc} is maintained by the {v}.", "The maintainers of {svc} are the {v}."],
    "change": ["Maintenance of {svc} went to the {v}.", "{svc} is maintained by the {v} from now on."],
    "correction": ["Small fix: {svc} is maintained by the {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {svc} has been maintained by the {v}."],
    "q_current": ["Who maintains {svc} today?"],
    "q_as_of": ["Who maintained {svc} on {date}?"],
    "q_history": ["Who maintained {svc} until the {v}?"],
}
T["oncall"] = {
    "state": ["{v} carries the {team} duty phone.", "This week's {team} duty engineer is {v}."],
    "change": ["{v} has the {team} duty phone now.", "The {team} duty phone went to {v}."],
    "correction": ["Small fix: the {team} duty engineer is {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {v} has carried the {team} duty phone."],
    "q_current": ["Who carries the {team} duty phone today?"],
    "q_as_of": ["Who carried the {team} duty phone on {date}?"],
    "q_history": ["Who carried the {team} duty phone until {v}?"],
}
T["launch_date"] = {
    "state": ["The {p} programme launches on {v}.", "Launch of the {p} programme is set for {v}."],
    "change": ["The {p} programme's launch was rescheduled to {v}.", "Launch of the {p} programme now falls on {v}."],
    "correction": ["Small fix: the {p} programme launches on {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, the {p} programme has been set to launch on {v}."],
    "q_current": ["On what date does the {p} programme launch, today's plan?"],
    "q_as_of": ["On what date was the {p} programme to launch, per the plan of {date}?"],
    "q_history": ["On what date was the {p} programme to launch until {v}?"],
}
T["sponsor"] = {
    "state": ["{v} sponsors the {p} programme.", "The executive sponsor of the {p} programme is {v}."],
    "change": ["{v} became sponsor of the {p} programme.", "Sponsorship of the {p} programme moved to {v}."],
    "correction": ["Small fix: the sponsor of the {p} programme is {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, {v} has sponsored the {p} programme."],
    "q_current": ["Who sponsors the {p} programme today?"],
    "q_as_of": ["Who sponsored the {p} programme on {date}?"],
    "q_history": ["Who sponsored the {p} programme until {v}?"],
}
T["project_status"] = {
    "state": ["The {p} programme sits in stage {v}.", "Stage of the {p} programme: {v}."],
    "change": ["The {p} programme advanced to stage {v}.", "The {p} programme dropped back to stage {v}."],
    "correction": ["Small fix: the {p} programme is in stage {v}; the {old} entry was outdated."],
    "as_of": ["Since {date}, the {p} programme has been in stage {v}."],
    "q_current": ["What stage is the {p} programme in today?"],
    "q_as_of": ["What stage was the {p} programme in on {date}?"],
    "q_history": ["What stage was the {p} programme in until {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # Entity-attribute-value records and "service/stage" targets: shapes the other sets never use.
    "person": ("hr.record", {"entity": {"type": "employee", "id": "{s}"}, "attributes": [{"name": "{key}", "value": "{v}"}]}),
    "deployment": ("monitor.check", {"target": "{svc}/{env}", "result": {"{key}": "{v}"}}),
    "service": ("registry.describe", {"component": "{svc}", "props": {"{key}": "{v}"}}),
    "team": ("duty.roster", {"group": "{team}", "now": {"{key}": "{v}"}}),
    "project": ("portfolio.item", {"programme": "{p}", "data": [{"field": "{key}", "value": "{v}"}]}),
}
TOOL_STAMP = ("checked", "%Y/%m/%d %H:%M")
JSON_KEYS = {"home_city": "home_town", "work_city": "work_location", "employer": "employing_firm", "team": "group",
             "manager": "reports_to", "status": "state", "version": "release", "database": "datastore",
             "owner": "maintainers", "oncall": "duty_engineer", "launch_date": "launch", "sponsor": "sponsor",
             "project_status": "stage"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "{name} is looking for a running buddy near {city}.",
        "The plants on floor {n} need watering, {name} is away.",
        "Board game night on {weekday} at {time}, bring {food}.",
        "{name} posted a recipe for {food} in the kitchen channel.",
        "Has anyone seen the charger for the projector in room {n}?",
        "Notes from {topic} are in the shared drive, says {name}.",
        "{name} recommends the {food} stall by the {city} station.",
        "The elevator on the east side is out until {weekday}.",
        "{name} will be late, the bus from {city} broke down.",
        "Reminder from {name}: {topic} sign-up closes {weekday}.",
        "Fun fact from {name}: the office used to be a bakery.",
        "Someone left {n} donuts in the break room at {time}.",
    ],
    "tool": [
        '{{"climate": {{"town": "{city}", "celsius": {n}, "outlook": "{weather}"}}}}',
        '{{"desk_reservation": {{"desk": "D{n}", "holder": "{name}", "day": "{weekday}"}}}}',
        '{{"invoice": {{"number": "INV-{n}{n2}", "amount": {n2}, "paid": false}}}}',
        '{{"survey": {{"topic": "{topic}", "responses": {n}, "score": {n2}}}}}',
    ],
    "tool_names": ["climate.now", "desks.reserve", "billing.invoice", "survey.summary"],
}

REPORTERS = (("Oluwaseun", "user:oluwaseun.admin"), ("Ingrid", "user:ingrid.facilities"), ("Rafael", "user:rafael.sre"))
LOW_TRUST = (("document", "doc:handbook-archive"), ("document", "doc:legacy-roster.csv"), ("peer", "agent:summary-bot"))
