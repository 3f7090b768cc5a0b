"""How statements and questions are phrased, one template set each for ``tune`` and ``heldout``.

Per attribute: third-person statements of a value (``state``) and of a change (``change``),
first-person ones spoken by the person themself (``first_state``/``first_change``, people
only), a correction naming the old value, an "as of DATE" statement, and the three questions
(current, as of a date, before a value). Tool results are JSON objects about an identified
entity, in a shape per set. Placeholders: ``{s}`` person, ``{svc}``/``{env}`` service and its
deployment, ``{team}``, ``{p}`` project, ``{v}`` the value (``{a_v}`` with its article), ``{old}``
the value it replaces, ``{date}``. No string of one set appears in the other
(``template_strings``), so tuning on ``tune`` cannot learn ``heldout``'s wording.
"""

from __future__ import annotations

import json
from typing import Any

KINDS = ("state", "change", "first_state", "first_change", "correction", "as_of", "q_current", "q_as_of", "q_history")

ATTRIBUTES: dict[str, str] = {
    "home_city": "person", "work_city": "person", "employer": "person", "language": "person", "role": "person",
    "status": "deployment", "version": "deployment", "region": "deployment", "owner": "service",
    "oncall": "team", "deadline": "project", "lead": "project", "project_status": "project",
}
"""Every attribute and the kind of entity it belongs to."""

OBSERVATIONS = frozenset({"status"})
"""Attributes that are observations (they go stale when nobody looks again)."""

T: dict[str, dict[str, dict[str, list[str]]]] = {"tune": {}, "heldout": {}}

T["tune"]["home_city"] = {
    "state": ["{s} lives in {v}.", "{s}'s home is in {v}.", "Home for {s} is {v}.", "{s} has an apartment in {v}."],
    "change": ["{s} moved to {v}.", "{s} has relocated to {v}.", "{s} just moved house to {v}."],
    "first_state": ["I live in {v}.", "My home is in {v}."],
    "first_change": ["I've moved to {v}!", "I just relocated to {v}."],
    "correction": ["Correction: {s} lives in {v}, not {old}."],
    "as_of": ["As of {date}, {s} lives in {v}."],
    "q_current": ["Where does {s} live now?"],
    "q_as_of": ["Where did {s} live on {date}?"],
    "q_history": ["Where did {s} live before {v}?"],
}
T["tune"]["work_city"] = {
    "state": ["{s} works in {v}.", "{s}'s office is in {v}.", "{s} commutes to the {v} office."],
    "change": ["{s} transferred to the {v} office.", "{s} now works out of {v}."],
    "first_state": ["I work in {v}.", "My office is in {v}."],
    "first_change": ["I've switched to the {v} office.", "Starting this week I work from the {v} office."],
    "correction": ["Correction: {s} works in {v}, not {old}."],
    "as_of": ["As of {date}, {s} works from the {v} office."],
    "q_current": ["Which city does {s} work in now?"],
    "q_as_of": ["Which city did {s} work in on {date}?"],
    "q_history": ["Which city did {s} work in before {v}?"],
}
T["tune"]["employer"] = {
    "state": ["{s} works for {v}.", "{s} is employed by {v}.", "{s} is on the payroll at {v}."],
    "change": ["{s} joined {v}.", "{s} left for a job at {v}."],
    "first_state": ["I work for {v}.", "I'm employed at {v}."],
    "first_change": ["I just started a new job at {v}.", "I've joined {v}!"],
    "correction": ["Correction: {s} is employed by {v}, not {old}."],
    "as_of": ["As of {date}, {s} works for {v}."],
    "q_current": ["Who does {s} work for now?"],
    "q_as_of": ["Who was {s}'s employer on {date}?"],
    "q_history": ["Who did {s} work for before {v}?"],
}
T["tune"]["language"] = {
    "state": ["{s} prefers {v}.", "{s}'s preferred programming language is {v}.", "{s} likes to write everything in {v}."],
    "change": ["{s} switched to {v}.", "{s} now uses {v} for everything."],
    "first_state": ["I prefer {v}.", "{v} is my favourite language."],
    "first_change": ["I've switched to {v}.", "These days I write everything in {v}."],
    "correction": ["Correction: {s} prefers {v}, not {old}."],
    "as_of": ["As of {date}, {s} prefers {v}."],
    "q_current": ["What programming language does {s} prefer now?"],
    "q_as_of": ["Which programming language did {s} prefer on {date}?"],
    "q_history": ["Which language did {s} prefer before {v}?"],
}
T["tune"]["role"] = {
    "state": ["{s} is {a_v}.", "{s} works as {a_v}.", "{s}'s job title is {v}."],
    "change": ["{s} became {a_v}.", "{s} took on a new role as {v}."],
    "first_state": ["I'm {a_v}.", "I work as {a_v}."],
    "first_change": ["I've become {a_v}.", "I'm starting a new role as {v}."],
    "correction": ["Correction: {s}'s role is {v}, not {old}."],
    "as_of": ["As of {date}, {s} works as {a_v}."],
    "q_current": ["What is {s}'s role now?"],
    "q_as_of": ["What was {s}'s role on {date}?"],
    "q_history": ["What was {s}'s role before {v}?"],
}
T["tune"]["status"] = {
    "state": ["{svc} in {env} is {v}.", "The {env} {svc} is currently {v}.", "Status check: {svc} ({env}) is {v}."],
    "change": ["{svc} in {env} changed state to {v}.", "Heads up: the {env} {svc} is now {v}."],
    "correction": ["Correction: {svc} in {env} is {v}, not {old}."],
    "as_of": ["As of {date}, {svc} in {env} is {v}."],
    "q_current": ["What is the status of {svc} in {env}?"],
    "q_as_of": ["What was the status of {svc} in {env} on {date}?"],
    "q_history": ["What was the status of {svc} in {env} before it was {v}?"],
}
T["tune"]["version"] = {
    "state": ["{svc} in {env} runs version {v}.", "The {env} {svc} is on version {v}.", "{env} has {svc} {v} deployed."],
    "change": ["Deployed {svc} {v} to {env}.", "{svc} in {env} was upgraded to {v}."],
    "correction": ["Correction: {svc} in {env} runs {v}, not {old}."],
    "as_of": ["As of {date}, {svc} in {env} runs version {v}."],
    "q_current": ["Which version of {svc} runs in {env}?"],
    "q_as_of": ["Which version of {svc} ran in {env} on {date}?"],
    "q_history": ["Which version of {svc} ran in {env} before {v}?"],
}
T["tune"]["region"] = {
    "state": ["{svc} in {env} is hosted in {v}.", "The {env} {svc} runs in region {v}."],
    "change": ["{svc} in {env} was migrated to {v}.", "We moved the {env} {svc} to {v}."],
    "correction": ["Correction: {svc} in {env} is hosted in {v}, not {old}."],
    "as_of": ["As of {date}, {svc} in {env} is hosted in {v}."],
    "q_current": ["Which region is {svc} in {env} hosted in?"],
    "q_as_of": ["Which region was {svc} in {env} hosted in on {date}?"],
    "q_history": ["Which region was {svc} in {env} hosted in before {v}?"],
}
T["tune"]["owner"] = {
    "state": ["{svc} is owned by the {v}.", "The {v} owns {svc}."],
    "change": ["Ownership of {svc} moved to the {v}.", "{svc} was handed over to the {v}."],
    "correction": ["Correction: {svc} is owned by the {v}, not the {old}."],
    "as_of": ["As of {date}, {svc} is owned by the {v}."],
    "q_current": ["Which team owns {svc} now?"],
    "q_as_of": ["Which team owned {svc} on {date}?"],
    "q_history": ["Which team owned {svc} before the {v}?"],
}
T["tune"]["oncall"] = {
    "state": ["{v} is on call for the {team} team.", "The {team} on-call is {v}."],
    "change": ["{v} took over the {team} on-call rotation.", "On-call for {team} handed over to {v}."],
    "correction": ["Correction: the {team} on-call is {v}, not {old}."],
    "as_of": ["As of {date}, {v} is on call for the {team} team."],
    "q_current": ["Who is on call for the {team} team now?"],
    "q_as_of": ["Who was on call for the {team} team on {date}?"],
    "q_history": ["Who was on call for the {team} team before {v}?"],
}
T["tune"]["deadline"] = {
    "state": ["Project {p} is due on {v}.", "The deadline for Project {p} is {v}."],
    "change": ["Project {p}'s deadline moved to {v}.", "Project {p} slipped to {v}."],
    "correction": ["Correction: Project {p} is due on {v}, not {old}."],
    "as_of": ["As of {date}, Project {p} is due on {v}."],
    "q_current": ["When is Project {p} due now?"],
    "q_as_of": ["When was Project {p} due, as planned on {date}?"],
    "q_history": ["When was Project {p} due before {v}?"],
}
T["tune"]["lead"] = {
    "state": ["{v} leads Project {p}.", "Project {p} is led by {v}."],
    "change": ["{v} took over as lead of Project {p}.", "Project {p} has a new lead: {v}."],
    "correction": ["Correction: Project {p} is led by {v}, not {old}."],
    "as_of": ["As of {date}, {v} leads Project {p}."],
    "q_current": ["Who leads Project {p} now?"],
    "q_as_of": ["Who led Project {p} on {date}?"],
    "q_history": ["Who led Project {p} before {v}?"],
}
T["tune"]["project_status"] = {
    "state": ["Project {p} is {v}.", "The status of Project {p} is {v}."],
    "change": ["Project {p} moved to {v}.", "Project {p} is now {v}."],
    "correction": ["Correction: Project {p} is {v}, not {old}."],
    "as_of": ["As of {date}, Project {p} is {v}."],
    "q_current": ["What is the status of Project {p} now?"],
    "q_as_of": ["What was the status of Project {p} on {date}?"],
    "q_history": ["What was the status of Project {p} before it was {v}?"],
}

T["heldout"]["home_city"] = {
    "state": ["{s} resides in {v}.", "{s} calls {v} home.", "{s} has a flat in {v}."],
    "change": ["{s} packed up and went to live in {v}.", "{s} is settling into a new place in {v}."],
    "first_state": ["Home for me is {v}.", "I'm a resident of {v}."],
    "first_change": ["Big news: I'm living in {v} now.", "Finally unpacked in my new place in {v}."],
    "correction": ["To clarify: {s} resides in {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, {s} resides in {v}."],
    "q_current": ["In which city is {s}'s home at the moment?"],
    "q_as_of": ["What city was {s} living in on {date}?"],
    "q_history": ["Where was {s}'s home prior to {v}?"],
}
T["heldout"]["work_city"] = {
    "state": ["{s} is stationed at the {v} site.", "{s}'s desk is at the {v} site.", "{s} reports to the {v} site daily."],
    "change": ["{s} got reassigned to the {v} site.", "{s}'s workplace changed to the {v} site."],
    "first_state": ["My workplace is the {v} site.", "I go to the {v} site for work."],
    "first_change": ["I've been reassigned to the {v} site.", "New desk for me at the {v} site."],
    "correction": ["To clarify: {s} is stationed at the {v} site ({old} was wrong)."],
    "as_of": ["Effective {date}, {s} is stationed at the {v} site."],
    "q_current": ["At which city's site does {s} work at the moment?"],
    "q_as_of": ["At which city's site was {s} working on {date}?"],
    "q_history": ["At which city's site did {s} work prior to {v}?"],
}
T["heldout"]["employer"] = {
    "state": ["{s} is on staff at {v}.", "{s} holds a position at {v}.", "{s}'s company is {v}."],
    "change": ["{s} accepted an offer from {v}.", "{s} signed on with {v}."],
    "first_state": ["My company is {v}.", "I'm on staff at {v}."],
    "first_change": ["I accepted an offer from {v}.", "Signed my contract with {v} today."],
    "correction": ["To clarify: {s} is on staff at {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, {s} is on staff at {v}."],
    "q_current": ["Which company employs {s} at the moment?"],
    "q_as_of": ["Which company employed {s} on {date}?"],
    "q_history": ["Which company employed {s} prior to {v}?"],
}
T["heldout"]["language"] = {
    "state": ["{s}'s language of choice is {v}.", "{s} codes mostly in {v}.", "{s} reaches for {v} first."],
    "change": ["{s} has gone all in on {v}.", "{s} rewrote their tooling in {v}."],
    "first_state": ["My language of choice is {v}.", "I code mostly in {v}."],
    "first_change": ["I've gone all in on {v}.", "I rewrote my tooling in {v}."],
    "correction": ["To clarify: {s}'s language of choice is {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, {s}'s language of choice is {v}."],
    "q_current": ["Which language does {s} code in by choice at the moment?"],
    "q_as_of": ["Which language did {s} code in by choice on {date}?"],
    "q_history": ["Which language did {s} code in by choice prior to {v}?"],
}
T["heldout"]["role"] = {
    "state": ["{s} holds the title {v}.", "{s}'s current title: {v}.", "{s} serves as {v}."],
    "change": ["{s} stepped into the {v} position.", "{s} got the {v} title."],
    "first_state": ["My title is {v}.", "I serve as {v}."],
    "first_change": ["I stepped into the {v} position.", "I got the {v} title this month."],
    "correction": ["To clarify: {s} holds the title {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, {s} holds the title {v}."],
    "q_current": ["What title does {s} hold at the moment?"],
    "q_as_of": ["What title did {s} hold on {date}?"],
    "q_history": ["What title did {s} hold prior to {v}?"],
}
T["heldout"]["status"] = {
    "state": ["Health of the {env} deployment of {svc}: {v}.", "The {svc} {env} deployment reports {v}."],
    "change": ["Alert: the {env} deployment of {svc} is {v}.", "The {svc} {env} deployment flipped to {v}."],
    "correction": ["To clarify: the {env} deployment of {svc} is {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, the {env} deployment of {svc} is {v}."],
    "q_current": ["How healthy is the {env} deployment of {svc}?"],
    "q_as_of": ["How healthy was the {env} deployment of {svc} on {date}?"],
    "q_history": ["How healthy was the {env} deployment of {svc} prior to being {v}?"],
}
T["heldout"]["version"] = {
    "state": ["The {env} deployment of {svc} is at {v}.", "{svc} ({env} deployment) carries {v}."],
    "change": ["Rolled {v} of {svc} out to {env}.", "The {env} deployment of {svc} moved up to {v}."],
    "correction": ["To clarify: the {env} deployment of {svc} is at {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, the {env} deployment of {svc} is at {v}."],
    "q_current": ["What build is the {env} deployment of {svc} at?"],
    "q_as_of": ["What build was the {env} deployment of {svc} at on {date}?"],
    "q_history": ["What build was the {env} deployment of {svc} at prior to {v}?"],
}
T["heldout"]["region"] = {
    "state": ["The {env} deployment of {svc} sits in the {v}.", "{svc} serves {env} traffic from the {v}."],
    "change": ["The {env} deployment of {svc} was rehomed to the {v}.", "{svc} {env} traffic now comes from the {v}."],
    "correction": ["To clarify: the {env} deployment of {svc} sits in the {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, the {env} deployment of {svc} sits in the {v}."],
    "q_current": ["Which datacenter serves the {env} deployment of {svc}?"],
    "q_as_of": ["Which datacenter served the {env} deployment of {svc} on {date}?"],
    "q_history": ["Which datacenter served the {env} deployment of {svc} prior to the {v}?"],
}
T["heldout"]["owner"] = {
    "state": ["The {v} is responsible for {svc}.", "{svc} belongs to the {v}."],
    "change": ["{svc} was transferred to the {v}.", "The {v} inherited {svc}."],
    "correction": ["To clarify: the {v} is responsible for {svc} ({old} was wrong)."],
    "as_of": ["Effective {date}, the {v} is responsible for {svc}."],
    "q_current": ["Which squad is responsible for {svc} at the moment?"],
    "q_as_of": ["Which squad was responsible for {svc} on {date}?"],
    "q_history": ["Which squad was responsible for {svc} prior to the {v}?"],
}
T["heldout"]["oncall"] = {
    "state": ["{v} holds the pager for the {team} squad.", "Primary on the {team} rota: {v}."],
    "change": ["The {team} pager passed to {v}.", "{v} picked up the {team} pager."],
    "correction": ["To clarify: {v} holds the pager for the {team} squad ({old} was wrong)."],
    "as_of": ["Effective {date}, {v} holds the pager for the {team} squad."],
    "q_current": ["Who holds the pager for the {team} squad at the moment?"],
    "q_as_of": ["Who held the pager for the {team} squad on {date}?"],
    "q_history": ["Who held the pager for the {team} squad prior to {v}?"],
}
T["heldout"]["deadline"] = {
    "state": ["The {p} initiative must ship by {v}.", "Target date for the {p} initiative: {v}."],
    "change": ["The {p} initiative's target date was pushed to {v}.", "New target date for the {p} initiative: {v}."],
    "correction": ["To clarify: the {p} initiative must ship by {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, the {p} initiative must ship by {v}."],
    "q_current": ["By when must the {p} initiative ship at the moment?"],
    "q_as_of": ["By when was the {p} initiative meant to ship, as of {date}?"],
    "q_history": ["By when was the {p} initiative meant to ship prior to {v}?"],
}
T["heldout"]["lead"] = {
    "state": ["{v} runs the {p} initiative.", "The {p} initiative is headed by {v}."],
    "change": ["{v} now heads the {p} initiative.", "Leadership of the {p} initiative passed to {v}."],
    "correction": ["To clarify: the {p} initiative is headed by {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, {v} runs the {p} initiative."],
    "q_current": ["Who heads the {p} initiative at the moment?"],
    "q_as_of": ["Who headed the {p} initiative on {date}?"],
    "q_history": ["Who headed the {p} initiative prior to {v}?"],
}
T["heldout"]["project_status"] = {
    "state": ["The {p} initiative's phase: {v}.", "Phase of the {p} initiative is {v}."],
    "change": ["The {p} initiative entered the {v} phase.", "The {p} initiative went {v}."],
    "correction": ["To clarify: the {p} initiative's phase is {v} ({old} was wrong)."],
    "as_of": ["Effective {date}, the {p} initiative's phase is {v}."],
    "q_current": ["Which phase is the {p} initiative in at the moment?"],
    "q_as_of": ["Which phase was the {p} initiative in on {date}?"],
    "q_history": ["Which phase was the {p} initiative in prior to {v}?"],
}

# Tool results: (tool name, JSON shape) per entity kind; "{key}" is the attribute's JSON key.
TOOLS: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {
    "tune": {
        "person": ("crm.get_person", {"type": "person", "name": "{s}", "{key}": "{v}"}),
        "deployment": ("status.get_service", {"service": "{svc}", "environment": "{env}", "{key}": "{v}"}),
        "service": ("catalog.get_service", {"service": "{svc}", "{key}": "{v}"}),
        "team": ("pager.who_is_on_call", {"team": "{team}", "{key}": "{v}"}),
        "project": ("pm.get_project", {"project": "{p}", "{key}": "{v}"}),
    },
    "heldout": {
        "person": ("directory.lookup", {"record": {"kind": "contact", "display_name": "{s}"}, "fields": {"{key}": "{v}"}}),
        "deployment": ("health.probe", {"resource": {"svc": "{svc}", "stage": "{env}"}, "observed": {"{key}": "{v}"}}),
        "service": ("ownership.resolve", {"resource": {"svc": "{svc}"}, "observed": {"{key}": "{v}"}}),
        "team": ("rota.current", {"rota": {"squad": "{team}", "{key}": "{v}"}}),
        "project": ("roadmap.fetch", {"initiative": {"codename": "{p}", "{key}": "{v}"}}),
    },
}
TOOL_STAMPS = {"tune": ("fetched_at", "%Y-%m-%dT%H:%MZ"), "heldout": ("retrieved", "%d %b %Y %H:%M UTC")}
"""The key and time format under which a tool result says when it was read."""
JSON_KEYS = {
    "tune": {"home_city": "home_city", "work_city": "work_city", "employer": "employer", "language": "preferred_language",
             "role": "role", "status": "status", "version": "version", "region": "region", "owner": "owner",
             "oncall": "on_call", "deadline": "deadline", "lead": "lead", "project_status": "status"},
    "heldout": {"home_city": "residence", "work_city": "office_site", "employer": "company", "language": "favourite_lang",
                "role": "title", "status": "health", "version": "build", "region": "datacenter", "owner": "owning_squad",
                "oncall": "primary", "deadline": "ship_by", "lead": "headed_by", "project_status": "phase"},
}

# Unrelated memories: chit-chat, and tool calls that are about nothing the questions ask.
NOISE: dict[str, dict[str, list[str]]] = {
    "tune": {
        "chat": [
            "{name} said the coffee machine on floor {n} is broken again.",
            "Reminder: team lunch at {time} on {weekday}, we're getting {food}.",
            "{name} shared photos from a weekend trip to {city}.",
            "Can someone review my pull request #{n} before {weekday}?",
            "{name} is out sick today, back on {weekday}.",
            "Thanks {name}, the notes on {topic} were really helpful.",
            "Does anyone know a good {food} place near the {city} office?",
            "{name} recommended a podcast about {topic}.",
            "The meeting about {topic} moved to {time}.",
            "{name} will present {topic} at the all-hands on {weekday}.",
            "Happy birthday {name}! Cake in the kitchen at {time}.",
            "I can't find the slides on {topic}, can you resend them?",
            "{name} booked a conference room for {time} on {weekday}.",
            "Traffic to the {city} office was terrible this morning, {n} minutes late.",
        ],
        "tool": [
            '{{"tool": "weather", "city": "{city}", "temp_c": {n}, "conditions": "{weather}"}}',
            '{{"calendar_event": "sync about {topic}", "start": "{time}", "day": "{weekday}", "attendees": {n}}}',
            '{{"ticket": "HELP-{n}{n2}", "title": "laptop battery replacement for {name}", "state": "open"}}',
            '{{"expense": {n}.{n2}, "category": "{food} lunch", "submitted_by": "{name}"}}',
        ],
        "tool_names": ["weather.current", "calendar.list", "helpdesk.get_ticket", "expenses.get"],
    },
    "heldout": {
        "chat": [
            "Anyone up for {food} after work on {weekday}?",
            "{name} brought homemade cookies, they are by the printer.",
            "Quick poll: should {topic} happen before or after {time}?",
            "{name} is hiking near {city} this weekend, fingers crossed for sun.",
            "Lost and found has a blue umbrella from floor {n}.",
            "{name} finally fixed the wobbly chair in room {n}.",
            "Who took the last oat milk? Asking for {name}.",
            "The fire drill is on {weekday} at {time}, please leave your laptops.",
            "{name} just finished a marathon, {n} kilometres in the rain!",
            "Volunteers wanted to organise {topic}, ping {name}.",
            "Tip: the {city} train was {n} minutes late again today.",
            "{name} left a thank-you card about {topic} on every desk.",
            "Is the {food} truck coming on {weekday} this week?",
            "Playlist request for the office party from {name}: more jazz.",
        ],
        "tool": [
            '{{"forecast": {{"location": "{city}", "high": {n}, "sky": "{weather}"}}}}',
            '{{"room_booking": {{"room": "R{n}", "slot": "{time}", "weekday": "{weekday}"}}}}',
            '{{"parcel": {{"tracking": "PK{n}{n2}", "recipient": "{name}", "status": "in transit"}}}}',
            '{{"poll": {{"question": "{topic}", "votes_yes": {n}, "votes_no": {n2}}}}}',
        ],
        "tool_names": ["forecast.get", "rooms.book", "mailroom.track", "polls.results"],
    },
}
WEATHER = ("sunny", "rain", "cloudy", "snow", "windy")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
TIMES = ("9:30", "11:00", "12:15", "14:00", "15:30", "16:45")


def template_strings(template_set: str) -> set[str]:
    """Every phrasing of a set: statements, questions, tool shapes and noise (to prove the two
    sets share none)."""
    strings = {s for attribute in T[template_set].values() for kind in attribute.values() for s in kind}
    strings |= {json.dumps(shape) for _, shape in TOOLS[template_set].values()}
    strings |= set(NOISE[template_set]["chat"]) | set(NOISE[template_set]["tool"])
    strings.add(TOOL_STAMPS[template_set][0])
    return strings


def render_json(shape: Any, fields: dict[str, str]) -> Any:
    if isinstance(shape, dict):
        return {render_json(k, fields): render_json(v, fields) for k, v in shape.items()}
    if isinstance(shape, list):
        return [render_json(item, fields) for item in shape]
    if isinstance(shape, str):
        return shape.format(**fields)
    return shape


def with_article(value: str) -> str:
    return f"{'an' if value[:1].lower() in 'aeiou' else 'a'} {value}"


ATTRIBUTES_BY_SET: dict[str, dict[str, str]] = {"tune": ATTRIBUTES, "heldout": ATTRIBUTES}


def _add_sets() -> None:
    """The sets with a module of their own (``_truth/sets.py``) join the tables above under their names."""
    from _truth.sets import MODULES, name

    for module in MODULES:
        for table, value in ((T, module.T), (TOOLS, module.TOOLS), (TOOL_STAMPS, module.TOOL_STAMP),
                             (JSON_KEYS, module.JSON_KEYS), (NOISE, module.NOISE), (ATTRIBUTES_BY_SET, module.ATTRIBUTES)):
            table[name(module)] = value


_add_sets()
