"""The fourth template set, ``fresh2``: a held-out world written before the engine's
generalisation work (issue 15, second pass) and run only once that work was final.

It shares no phrasing, JSON shape, name or value with the other three sets. Its make-up differs
too: people carry a preferred editor and a mentor, deployments a runtime, projects a champion
and a phase; versions are calendar tags ("2026.14"); dates read "4 Mar 2026". Changes are said
the ways people say them when they are not filling in a form ("traded X for Y", "no longer at X,
Y now", "X is history, it's Y"), and every slot gets **distractors**: sentences that name the
subject and another value of the same kind without setting the slot ("flew to X for a wedding",
"also keeps X around for quick edits", "interviewed at X but said no", "if it goes X, page
someone"). A distractor must never retire the current value; the benchmark scores that through
the current-value and collateral questions (a distractor is not a statement of any slot). Its
random stream is seeded apart from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh2-2026-12-02"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("home_city", "work_city", "employer", "editor", "mentor"),
    "deployment": ("status", "version", "runtime"),
    "service": ("owner",),
    "team": ("oncall",),
    "project": ("deadline", "champion", "phase"),
}

ATTRIBUTES: dict[str, str] = {
    a: kind for kind, attributes in SCHEMA.items() for a in attributes
}

VOCAB = Vocabulary(
    name_pairs=(
        ("Agnes", "Agneta"),
        ("Bram", "Brams"),
        ("Cleo", "Clio"),
        ("Dario", "Darius"),
        ("Elsa", "Else"),
        ("Fabian", "Fabio"),
        ("Gus", "Gustav"),
        ("Helga", "Helka"),
        ("Ivo", "Iva"),
        ("Jorge", "Jorja"),
        ("Kirsi", "Kirsti"),
        ("Linus", "Linnea"),
        ("Magda", "Magdi"),
        ("Nadia", "Nadja"),
        ("Otto", "Otis"),
    ),
    surnames=(
        "Achterberg",
        "Bianchi",
        "Dimitrov",
        "Eze",
        "Halvorsen",
        "Ishikawa",
        "Pereira",
        "Wojcik",
    ),
    cities=(
        "Nantes",
        "Utrecht",
        "Bologna",
        "Valencia",
        "Salzburg",
        "Krakow",
        "Brno",
        "Ljubljana",
        "Zagreb",
        "Vilnius",
        "Aberdeen",
        "Cardiff",
        "Gothenburg",
        "Trondheim",
        "Antwerp",
        "Genoa",
    ),
    employers=(
        "Quarry Lane Studios",
        "Bluebell Insurance",
        "Hexagon Freightworks",
        "Marlow & Finch",
        "Cinder Analytics",
        "Northgate Clinics",
        "Polar Ridge Software",
        "Tern Aviation",
        "Wicker Logistics",
        "Juniper Grove Bank",
        "Ashcombe Foods",
        "Sparrowhawk Labs",
    ),
    languages=(),
    roles=(),
    services=(
        "ledger-writer",
        "thumbnailer",
        "address-verifier",
        "webhook-fanout",
        "rate-limiter",
        "pdf-renderer",
        "loyalty-points",
        "search-suggest",
        "otp-sender",
        "shipment-tracker",
        "currency-rates",
        "avatar-store",
        "slot-booker",
        "receipt-parser",
        "flag-service",
    ),
    environments=("canary", "stable"),
    service_statuses=("nominal", "wobbly", "dark", "in a brownout", "rate-limited"),
    regions=(),
    owner_teams=(
        "ledger guild",
        "media tribe",
        "growth chapter",
        "payments circle",
        "reliability chapter",
        "search tribe",
        "messaging circle",
        "logistics chapter",
    ),
    teams=(
        "bookkeeping",
        "media",
        "fulfilment",
        "uptime",
        "messaging",
        "logistics",
        "storefront",
        "risk",
        "edge cache",
        "devex",
    ),
    projects=(
        "Albatross",
        "Bluebird",
        "Condor",
        "Dipper",
        "Eider",
        "Finch",
        "Grebe",
        "Hoopoe",
        "Junco",
        "Kingfisher",
        "Lapwing",
        "Merlin",
        "Nightjar",
        "Oriole",
        "Plover",
        "Rook",
        "Shrike",
        "Swift",
        "Teal",
        "Warbler",
    ),
    project_statuses=(),
    version_style="calver",
    date_format="%-d %b %Y",
    foods=("gyoza", "burritos", "lasagne", "banh mi", "goulash", "mezze"),
    topics=(
        "the hackathon",
        "the pension webinar",
        "the coat drive",
        "the new badge readers",
        "the recycling rota",
        "the book club",
        "the wellbeing week",
        "the desk clean-up",
    ),
    pools=(
        (
            "editor",
            (
                "Neovim",
                "VS Code",
                "Emacs",
                "IntelliJ IDEA",
                "Sublime Text",
                "Helix",
                "Zed",
                "Xcode",
            ),
        ),
        (
            "runtime",
            (
                "Node 20",
                "Python 3.12",
                "JDK 21",
                "Go 1.22",
                ".NET 8",
                "Ruby 3.3",
                "Deno 1.40",
            ),
        ),
        (
            "phase",
            ("ideation", "prototyping", "beta", "general availability", "sunsetting"),
        ),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["home_city"] = {
    "state": [
        "{s} keeps a flat in {v}.",
        "{s} has put down roots in {v}.",
        "{s}'s household is in {v}.",
    ],
    "change": [
        "{s} packed up and left {old}; home is {v} now.",
        "{s} traded {old} for {v} last month and rents there.",
        "{s} no longer lives in {old}, it's {v} these days.",
    ],
    "first_state": ["My flat is in {v}.", "I rent a place in {v}."],
    "first_change": [
        "Finally out of {old}, I'm settled in {v}.",
        "Said goodbye to {old}, I live in {v} now.",
    ],
    "correction": ["Scratch that about {old}: {s} actually lives in {v}."],
    "as_of": ["{s} has lived in {v} since {date}."],
    "distractor": [
        "{s} flew to {x} for a wedding.",
        "{s}'s parents live in {x}.",
        "{s} keeps saying they might move to {x} one day.",
        "{s} spent a long weekend in {x}.",
        "{s} would never live in {x}, too rainy.",
    ],
    "q_current": ["Which city does {s} call home these days?"],
    "q_as_of": ["Which city did {s} call home on {date}?"],
    "q_history": ["Which city was home for {s} prior to {v}?"],
}
T["work_city"] = {
    "state": [
        "{s} reports to the {v} site each morning.",
        "{s} has a desk at the {v} site.",
    ],
    "change": [
        "{s} swapped the {old} site for the {v} one.",
        "{s} is no longer at the {old} site; the {v} site it is.",
    ],
    "first_state": ["My desk is at the {v} site.", "I go in to the {v} site."],
    "first_change": [
        "Goodbye {old} site, I'm at the {v} site from now on.",
        "They relocated me to the {v} site.",
    ],
    "correction": ["Scratch that about the {old} site: {s} works at the {v} site."],
    "as_of": ["{s} has worked at the {v} site since {date}."],
    "distractor": [
        "{s} visited the {x} site for a workshop.",
        "{s} gave a talk at the {x} site on Friday.",
        "{s} was asked to help out at the {x} site for a day.",
    ],
    "q_current": ["At which site does {s} work these days?"],
    "q_as_of": ["At which site did {s} work on {date}?"],
    "q_history": ["At which site did {s} work prior to the {v} site?"],
}
T["employer"] = {
    "state": ["{s} has a permanent contract with {v}.", "{s} draws a salary from {v}."],
    "change": [
        "{s} handed in notice at {old} and signed with {v}.",
        "{s} is done with {old}; {v} hired them.",
    ],
    "first_state": ["I have a permanent contract with {v}.", "My employer is {v}."],
    "first_change": [
        "Last day at {old} was Friday, I start at {v} on Monday.",
        "Signed my contract with {v} today!",
    ],
    "correction": ["Scratch that about {old}: {s} is on staff at {v}."],
    "as_of": ["{s} has been on staff at {v} since {date}."],
    "distractor": [
        "{s} interviewed at {x} but said no.",
        "{s}'s partner works at {x}.",
        "{s} did a short freelance gig for {x}.",
        "{s} was headhunted by {x} and declined.",
    ],
    "q_current": ["Who is {s} on staff at these days?"],
    "q_as_of": ["Who was {s} on staff at on {date}?"],
    "q_history": ["Who was {s} on staff at prior to {v}?"],
}
T["editor"] = {
    "state": ["{s} writes code in {v}.", "{s}'s editor of choice is {v}."],
    "change": [
        "{s} gave up {old} and writes code in {v} now.",
        "{s} went from {old} to {v} for coding.",
    ],
    "first_state": ["I write all my code in {v}.", "My editor of choice is {v}."],
    "first_change": [
        "Uninstalled {old}, I'm all in on {v} now.",
        "I dropped {old}; {v} is my editor now.",
    ],
    "correction": ["Scratch that about {old}: {s}'s editor is {v}."],
    "as_of": ["{s} has written code in {v} since {date}."],
    "distractor": [
        "{s} also keeps {x} around for quick edits.",
        "{s} tried {x} for a weekend.",
        "{s} thinks {x} has nice themes.",
        "{s} also opens {x} for markdown notes.",
    ],
    "q_current": ["Which editor does {s} write code in these days?"],
    "q_as_of": ["Which editor did {s} write code in on {date}?"],
    "q_history": ["Which editor did {s} write code in prior to {v}?"],
}
T["mentor"] = {
    "state": ["{v} mentors {s}.", "{s}'s mentor is {v}."],
    "change": [
        "{s} has {v} as a mentor now instead of {old}.",
        "{v} took over mentoring {s} from {old}.",
    ],
    "first_state": ["{v} is my mentor.", "I'm mentored by {v}."],
    "first_change": [
        "{v} is mentoring me now that {old} is busy.",
        "My mentor changed from {old} to {v}.",
    ],
    "correction": ["Scratch that about {old}: {s}'s mentor is {v}."],
    "as_of": ["{v} has mentored {s} since {date}."],
    "distractor": [
        "{s} had lunch with {x}.",
        "{s} and {x} paired on a bug.",
        "{s} asked {x} for advice once.",
    ],
    "q_current": ["Who mentors {s} these days?"],
    "q_as_of": ["Who mentored {s} on {date}?"],
    "q_history": ["Who mentored {s} prior to {v}?"],
}
T["status"] = {
    "state": [
        "Health probe: {svc} in {env} reads {v}.",
        "{svc} in {env} looks {v} on the board.",
    ],
    "change": [
        "Alert: {svc} in {env} flipped to {v}.",
        "{svc} in {env} is {v} after the incident.",
    ],
    "correction": ["Scratch that about {svc} in {env} being {old}: it is {v}."],
    "as_of": ["{svc} in {env} has been {v} since {date}."],
    "distractor": [
        "If {svc} in {env} goes {x}, page the reliability chapter.",
        "Drill plan: pretend {svc} in {env} is {x} and rehearse the failover.",
    ],
    "q_current": ["How does {svc} in {env} look these days?"],
    "q_as_of": ["How did {svc} in {env} look on {date}?"],
    "q_history": ["How did {svc} in {env} look prior to being {v}?"],
}
T["version"] = {
    "state": [
        "{svc} in {env} carries tag {v}.",
        "Tag {v} of {svc} is what {env} runs.",
    ],
    "change": [
        "Rolled {svc} in {env} forward to tag {v}.",
        "{svc} in {env} moved up to tag {v}.",
    ],
    "correction": ["Scratch that about tag {old}: {svc} in {env} carries tag {v}."],
    "as_of": ["{svc} in {env} has carried tag {v} since {date}."],
    "q_current": ["Which tag does {svc} in {env} carry these days?"],
    "q_as_of": ["Which tag did {svc} in {env} carry on {date}?"],
    "q_history": ["Which tag did {svc} in {env} carry prior to {v}?"],
}
T["runtime"] = {
    "state": [
        "{svc} in {env} executes on {v}.",
        "The runtime under {svc} in {env} is {v}.",
    ],
    "change": [
        "{svc} in {env} was migrated off {old} onto {v}.",
        "{svc} in {env} now executes on {v} rather than {old}.",
    ],
    "correction": ["Scratch that about {old}: {svc} in {env} executes on {v}."],
    "as_of": ["{svc} in {env} has executed on {v} since {date}."],
    "distractor": [
        "Someone benchmarked {svc} on {x} locally, no plans to ship it.",
        "We could try {x} for {svc} in {env} next quarter.",
    ],
    "q_current": ["Which runtime does {svc} in {env} execute on these days?"],
    "q_as_of": ["Which runtime did {svc} in {env} execute on on {date}?"],
    "q_history": ["Which runtime did {svc} in {env} execute on prior to {v}?"],
}
T["owner"] = {
    "state": ["The {v} looks after {svc}.", "{svc} is stewarded by the {v}."],
    "change": [
        "The {old} handed {svc} over to the {v}.",
        "{svc} now belongs to the {v}, not the {old}.",
    ],
    "correction": ["Scratch that about the {old}: {svc} belongs to the {v}."],
    "as_of": ["The {v} has looked after {svc} since {date}."],
    "distractor": [
        "The {x} sent {svc} a pull request.",
        "The {x} reviewed the design of {svc}.",
    ],
    "q_current": ["Which group looks after {svc} these days?"],
    "q_as_of": ["Which group looked after {svc} on {date}?"],
    "q_history": ["Which group looked after {svc} prior to the {v}?"],
}
T["oncall"] = {
    "state": ["{v} holds the {team} pager this rotation.", "Pager for {team}: {v}."],
    "change": [
        "{v} took the {team} pager from {old}.",
        "The {team} pager passed from {old} to {v}.",
    ],
    "correction": ["Scratch that about {old}: {v} holds the {team} pager."],
    "as_of": ["{v} has held the {team} pager since {date}."],
    "distractor": [
        "{x} covered the {team} pager for an hour while at the dentist's.",
        "{x} will shadow the {team} pager next month.",
    ],
    "q_current": ["Who holds the {team} pager these days?"],
    "q_as_of": ["Who held the {team} pager on {date}?"],
    "q_history": ["Who held the {team} pager prior to {v}?"],
}
T["deadline"] = {
    "state": ["The {p} effort is due {v}.", "Due date for the {p} effort: {v}."],
    "change": [
        "The {p} effort slipped from {old} to {v}.",
        "The {p} effort got a new due date, {v}.",
    ],
    "correction": ["Scratch that about {old}: the {p} effort is due {v}."],
    "as_of": ["The {p} effort has been due {v} since the replan of {date}."],
    "q_current": ["When is the {p} effort due these days?"],
    "q_as_of": ["When was the {p} effort due as planned on {date}?"],
    "q_history": ["When was the {p} effort due prior to {v}?"],
}
T["champion"] = {
    "state": ["{v} champions the {p} effort.", "The {p} effort's champion is {v}."],
    "change": [
        "{v} picked up the {p} effort from {old} as champion.",
        "{old} stepped back; {v} champions the {p} effort now.",
    ],
    "correction": ["Scratch that about {old}: {v} champions the {p} effort."],
    "as_of": ["{v} has championed the {p} effort since {date}."],
    "distractor": [
        "{x} left a comment on the {p} effort's doc.",
        "{x} demoed the {p} effort at the town hall.",
    ],
    "q_current": ["Who champions the {p} effort these days?"],
    "q_as_of": ["Who championed the {p} effort on {date}?"],
    "q_history": ["Who championed the {p} effort prior to {v}?"],
}
T["phase"] = {
    "state": ["The {p} effort is in its {v} phase.", "Phase of the {p} effort: {v}."],
    "change": [
        "The {p} effort left {old} and entered {v}.",
        "The {p} effort is past {old}, now in {v}.",
    ],
    "correction": ["Scratch that about {old}: the {p} effort is in {v}."],
    "as_of": ["The {p} effort has been in {v} since {date}."],
    "distractor": [
        "The {p} effort might reach {x} by summer if hiring goes well.",
        "Nobody wants the {p} effort to end up in {x}.",
    ],
    "q_current": ["Which phase is the {p} effort in these days?"],
    "q_as_of": ["Which phase was the {p} effort in on {date}?"],
    "q_history": ["Which phase was the {p} effort in prior to {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "person": (
        "people.profile",
        {"who": {"legal_name": "{s}"}, "current": {"{key}": "{v}"}},
    ),
    "deployment": (
        "fleet.inspect",
        {"app": "{svc}", "ring": "{env}", "observed": {"{key}": "{v}"}},
    ),
    "service": ("catalog.entry", {"component_name": "{svc}", "meta": {"{key}": "{v}"}}),
    "team": ("pager.schedule", {"rota": "{team}", "holder": {"{key}": "{v}"}}),
    "project": ("roadmap.card", {"initiative": "{p}", "card": {"{key}": "{v}"}}),
}
TOOL_STAMP = ("as_at", "%d.%m.%Y %H:%M")
JSON_KEYS = {
    "home_city": "residence_city",
    "work_city": "office_site",
    "employer": "organisation",
    "editor": "ide",
    "mentor": "mentor_name",
    "status": "health",
    "version": "tag",
    "runtime": "runtime_env",
    "owner": "steward",
    "oncall": "pager_holder",
    "deadline": "due",
    "champion": "champion_name",
    "phase": "phase_name",
}

NOISE: dict[str, list[str]] = {
    "chat": [
        "{name} is organising a carpool from {city} on {weekday}.",
        "The coffee grinder on floor {n} jammed again.",
        "Quiz night is {weekday} at {time}, {food} provided.",
        "{name} shared photos from a trip to {city}.",
        "Who borrowed the HDMI adapter from room {n}?",
        "{name} says the notes on {topic} are pinned in the channel.",
        "{name} swears by the {food} place near the {city} stadium.",
        "The car park barrier is stuck until {weekday}.",
        "{name} missed the stand-up, the tram from {city} was cancelled.",
        "Last call from {name}: {topic} closes on {weekday}.",
        "{name} taught everyone a card trick at lunch.",
        "There are {n} slices of cake left in the kitchen at {time}.",
    ],
    "tool": [
        '{{"meteo": {{"place": "{city}", "deg": {n}, "summary": "{weather}"}}}}',
        '{{"locker": {{"number": "L{n}", "assigned": "{name}", "until": "{weekday}"}}}}',
        '{{"purchase_order": {{"po": "PO-{n}{n2}", "total": {n2}, "approved": true}}}}',
        '{{"feedback": {{"about": "{topic}", "count": {n}, "nps": {n2}}}}}',
    ],
    "tool_names": [
        "meteo.today",
        "lockers.assign",
        "procurement.po",
        "feedback.digest",
    ],
}

REPORTERS = (
    ("Wilhelmina", "user:wilhelmina.ops"),
    ("Tobiah", "user:tobiah.hr"),
    ("Saoirse", "user:saoirse.eng"),
)
LOW_TRUST = (
    ("document", "doc:old-confluence-dump"),
    ("document", "doc:contacts-2023.vcf"),
    ("peer", "agent:digest-bot"),
)
