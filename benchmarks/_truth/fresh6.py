"""The eighth template set, ``fresh6``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no phrasing
was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service", a
status observation that goes stale, repeats, late arrivals, old restatements, distractors); what
is in it is a household assistant's and a small business owner's stream. People have a pharmacy
(where prescriptions are collected), a dietary requirement, a preferred airline seat and two
payment cards that are easily confused (the default card and the backup card: the look-alike
pair). The "deployments" are smart-home devices in the two flats of one house (Flat A and Flat B)
with a connection state (the observation slot), the Wi-Fi network they are joined to and a
warranty end date; the "service" of a device type is the app or hub that controls it; teams are
clubs and circles (book club, carpool, choir) with a venue; the "projects" are small shops with
opening hours, a main supplier and a keyholder (who opens up). Some shops have look-alike names.

Statements come as first-person chat ("my new card is …", "actually it's …", "no wait"),
voice-assistant transcripts (lowercase, no punctuation), SMS shorthand ("pls", "fyi", "2moro"),
e-mail bodies with greetings and signatures, receipts and device telemetry pasted as JSON,
calendar entries, to-do items, spreadsheet rows with a pipe or tab header, form submissions
("Field: value" lines), shop-window notices and supplier invoices. Dates are ``2027/03/04`` and
also ``2027-03-04``, ``4 March 2027``, ``Mar 4``, "since the 4th" and "since Thursday morning".
Tool results are a form submission with question/answer records, a home hub's device state, a
hub integration list, a calendar search and a spreadsheet row. Distractors name the subject and
another value without setting the slot: hedges ("thinking about switching to", "if the quote is
ok"), questions, negations, a one-off, a relative's value, a device of the same type next door.
Its random stream is seeded apart from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh6-2026-12-04-blind-household"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("pharmacy", "diet", "seat", "default_card", "backup_card"),
    "deployment": ("status", "wifi_network", "warranty_end"),
    "service": ("hub_app",),
    "team": ("venue",),
    "project": ("opening_hours", "supplier", "keyholder"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED = ("keyholder",)
"""Attributes whose values are the world's people."""
SELF_EXCLUDED: tuple[str, ...] = ()
"""No person-valued attribute of a person in this set."""
SIBLINGS = {"default_card": "backup_card", "backup_card": "default_card"}
"""Two payment cards of one person that look alike (both "BRAND ending NNNN") but are not the same slot."""
VERSIONED: tuple[str, ...] = ()
DATED = ("warranty_end",)
"""Attributes whose values are future dates."""


def _ordinal(day: int) -> str:
    return f"{day}{'th' if 10 <= day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th')}"


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``);
    ``{weekday}`` and ``{day_ord}`` only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_long": date.strftime("%-d %B %Y"),
            "date_short": date.strftime("%b %-d"), "day_ord": _ordinal(date.day), "weekday": date.strftime("%A")}


VOCAB = Vocabulary(
    name_pairs=(("Cian", "Kian"), ("Aurelio", "Aurelia"), ("Matej", "Matei"), ("Halina", "Galina"), ("Odile", "Odila"),
                ("Bryn", "Brin"), ("Esme", "Esmee"), ("Niamh", "Neve"), ("Joss", "Josh"), ("Elodie", "Elodia"),
                ("Tamar", "Tamara"), ("Rhys", "Reece"), ("Lotte", "Lottie"), ("Perrin", "Perin"), ("Kobe", "Koby")),
    surnames=("Achterberg", "Balogun", "Cassidy", "Drummond", "Espinoza", "Featherstone", "Grzelak", "Halloran"),
    cities=("Galway", "Inverness", "Bruges", "Lucca", "Annecy", "Girona", "Kotor", "Porto Alegre",
            "Trieste", "Bath", "York", "Oban", "Hobart", "Ghent", "Split", "Bergamo"),
    employers=(),
    languages=(),
    roles=(),
    services=("smoke alarm", "doorbell camera", "smart lock", "leak sensor", "robot vacuum", "garage door opener",
              "baby monitor", "air purifier", "EV charger", "solar inverter", "irrigation controller", "CO detector",
              "security panel", "smart plug", "heat pump controller"),
    environments=("Flat A", "Flat B"),
    service_statuses=("connected", "low on battery", "out of range", "updating", "unpaired"),
    regions=(),
    owner_teams=(),
    teams=("book club", "school carpool", "Sunday league", "allotment society", "community choir", "pub quiz team",
           "residents' association", "running club", "knitting circle", "chess club"),
    projects=("Bramble Café", "Bramble Bakery", "Kettle & Crumb", "Kettle & Crust", "Fernhill Florist", "Saltbox Deli",
              "Tidy Paws Grooming", "Northgate Cycles", "Northgate Bookshop", "Little Acorn Toyshop", "Copperleaf Tearoom",
              "Harbour Fish Bar", "Mossgrove Plants", "Quayside Laundrette", "Wickham Hardware", "Pebble & Pine",
              "Larder Lane Grocery", "Hopscotch Ice Cream", "Stitch & Mend", "Old Forge Framing"),
    project_statuses=(),
    version_style="semver",
    date_format="%Y/%m/%d",
    foods=("lasagne", "fish pie", "dal", "risotto", "fajitas", "katsu curry"),
    topics=("the school trip", "the bin collection", "the summer holiday", "the car MOT", "the boiler service",
            "the birthday party", "the window cleaner", "the council tax bill"),
    pools=(
        ("pharmacy", ("Ashby Pharmacy", "Cornmarket Chemist", "Well Street Pharmacy", "Parkside Pharmacy", "Dunlop Chemists",
                      "Riverside Apothecary", "Kingsway Pharmacy", "Orchard Pharmacy", "St Anne's Dispensary",
                      "MediPost (mail order)")),
        ("diet", ("vegetarian", "vegan", "pescatarian", "gluten-free", "halal", "kosher", "dairy-free", "low-FODMAP",
                  "keto", "nut-free")),
        ("seat", ("aisle", "window", "exit-row aisle", "bulkhead window", "front-row aisle", "over-wing window",
                  "extra-legroom aisle", "rear window")),
        # Default and backup cards never share a last-four: the two pools are disjoint.
        ("default_card", ("Visa ending 4417", "Mastercard ending 8820", "Amex ending 1005", "Visa debit ending 3391",
                          "Monzo card ending 7264", "Revolut card ending 5530", "Visa ending 9046", "Mastercard ending 2178",
                          "Amex ending 6612", "Visa debit ending 0459")),
        ("backup_card", ("Mastercard ending 3307", "Visa ending 7781", "Amex ending 4290", "Visa debit ending 1856",
                         "Starling card ending 6043", "Mastercard ending 9912", "Revolut card ending 2684", "Visa ending 5128",
                         "Amex ending 0731", "Monzo card ending 4475")),
        ("wifi_network", ("HollyHouse", "HollyHouse-5G", "Holly-IoT", "FlatB-Guest", "SKY4F21C", "BT-Hub-7J2K", "eero-mesh",
                          "TALKTALK-9A3E", "iot-2g", "VM-C0FFEE")),
        ("hub_app", ("Home Assistant", "SmartThings", "Google Home", "Alexa", "Apple Home", "Hive", "Tuya Smart", "Hubitat")),
        ("venue", ("the Crown & Anchor", "St Luke's church hall", "the community centre", "the library annexe",
                   "Fenwick Park pavilion", "the scout hut", "the Red Lion", "the Platform 9 café", "the leisure centre")),
        ("opening_hours", ("Mon-Sat 8:00-17:30", "Tue-Sun 9:00-16:00", "daily 7:30-15:00", "Mon-Fri 8:00-18:00, Sat 9:00-13:00",
                           "Wed-Sun 10:00-18:00", "Mon-Sat 9:30-17:00", "Thu-Mon 11:00-22:00", "daily 8:00-20:00")),
        ("supplier", ("Westcombe Dairy", "Hartley Flour Mill", "Greenfield Produce", "Coastline Fish Company",
                      "Beanworks Coffee Roasters", "Marsh Lane Meats", "Pennywell Packaging", "Thornbury Wholesale",
                      "Oakfield Eggs", "Riverside Cash & Carry")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["pharmacy"] = {
    "state": ["{s} collects prescriptions from {v}.", "Nominated pharmacy for {s}: {v}.",
              "Hi,\n\nJust confirming {s}'s repeat prescriptions are sent to {v}.\n\nKind regards,\nReception, Lark Rise Surgery",
              "Patient: {s}\nPharmacy: {v}\nRepeat: monthly", "To do: pick up {s}'s inhaler from {v}"],
    "change": ["{s} moved their prescriptions from {old} to {v}.",
               "Hi,\n\n{s}'s nominated pharmacy has been changed to {v}; {old} will no longer receive them.\n\nBest wishes,\nThe Surgery Team",
               "{s} switched pharmacies, it's {v} now instead of {old}.", "fyi {s} uses {v} now, not {old} anymore"],
    "first_state": ["I get my prescriptions from {v}.", "my pharmacy is {v}", "Pharmacy's {v}, the one I always use."],
    "first_change": ["I've switched my pharmacy to {v}, {old} kept losing my repeats.",
                     "hey assistant change my pharmacy to {v}", "New pharmacy for me: {v}. Done with {old}."],
    "correction": ["No wait, {s}'s pharmacy is {v}, not {old}.", "Actually it's {v} for {s}'s prescriptions; {old} was wrong.",
                   "Sorry, mixed them up: {s} uses {v}, {old} is someone else's."],
    "as_of": ["As of {date}, {s}'s prescriptions go to {v}.", "Since the {day_ord}, {s} has collected from {v}.",
              "Nomination updated {date_long}: {s}, {v}."],
    "distractor": ["{s} picked up some plasters at {x} on the way home.", "{s} is thinking about switching to {x}, it's open later.",
                   "Does {x} do flu jabs? {s} asked.", "{s}'s mum uses {x}.", "{s} is not using {x}, that was a one-off."],
    "q_current": ["Which pharmacy does {s} use now?"],
    "q_as_of": ["Which pharmacy did {s} use on {date}?"],
    "q_history": ["Which pharmacy did {s} use before {v}?"],
}
T["diet"] = {
    "state": ["{s} is {v}.", "Dinner RSVP\nName: {s}\nDietary requirements: {v}", "{s} eats {v}, keep that in mind for the party.",
              "Name\tDiet\n{s}\t{v}", "Booking note: one guest ({s}) is {v}."],
    "change": ["{s} has gone {v}; no longer {old}.", "{s} changed their dietary requirement from {old} to {v}.",
               "Heads up, {s} is {v} now (was {old}), so plan the menu around that.", "update: {s} now {v}, not {old} pls note"],
    "first_state": ["I'm {v}, just so you know.", "i eat {v} so please filter recipes for that", "Put me down as {v} for the dinner."],
    "first_change": ["I've gone {v}! No more {old} for me.", "ok so i'm {v} now not {old}",
                     "Update my profile: I'm {v} from today, not {old}."],
    "correction": ["No wait, {s} is {v}, not {old}.", "Actually it's {v}, I put {old} for {s} by mistake.",
                   "Correction to the RSVP: {s} is {v} rather than {old}."],
    "as_of": ["As of {date}, {s} is {v}.", "{s} has been {v} since {weekday} morning.", "Profile change {date_iso}: {s}, diet {v}."],
    "distractor": ["{s} ordered the {x} option once because nothing else was left.", "{s}'s partner is {x}.",
                   "{s} is thinking about trying {x} for a month.", "Is the {x} menu ok for {s}?",
                   "{s} isn't {x}, that was the person sitting next to them."],
    "q_current": ["What is {s}'s dietary requirement now?"],
    "q_as_of": ["What was {s}'s dietary requirement on {date}?"],
    "q_history": ["What was {s}'s dietary requirement before {v}?"],
}
T["seat"] = {
    "state": ["{s} prefers {a_v} seat.", "Seat preference for {s}: {v}.", "Traveller profile\nName: {s}\nSeat: {v}",
              "When booking flights for {s}, pick {a_v} seat.", "{s} always wants {a_v} seat on planes."],
    "change": ["{s} wants {a_v} seat now instead of {old}.", "{s}'s seat preference changed from {old} to {v}.",
               "Please book {s} {a_v} seat from now on, not {old}.", "{s} has gone off {old} seats, {v} from now on."],
    "first_state": ["I like {a_v} seat when I fly.", "always book me {a_v} seat", "Seat-wise I go for {v}."],
    "first_change": ["From now on get me {a_v} seat, not {old}.", "book me {v} seats from now on instead of {old}",
                     "Changed my mind on seats: {v}, not {old}."],
    "correction": ["No wait, {s} wants {v}, not {old}.", "Actually it's {v} for {s}, I said {old} by mistake.",
                   "Sorry, wrong profile: {s} prefers {v}, not {old}."],
    "as_of": ["As of {date}, {s} prefers {a_v} seat.", "Traveller profile saved {date_long}: {s}, seat {v}."],
    "distractor": ["On the last flight {s} ended up with {x} because the plane was full.",
                   "{s} booked {x} for their dad.", "Would {s} take {x} if it's cheaper?",
                   "{s} is not keen on {x}, just so you know."],
    "q_current": ["Which seat does {s} prefer now?"],
    "q_as_of": ["Which seat did {s} prefer on {date}?"],
    "q_history": ["Which seat did {s} prefer before {v}?"],
}
T["default_card"] = {
    "state": ["{s}'s default card is the {v}.", "Pay with {s}'s {v} by default.", "Payment method on file for {s}: {v} (default).",
              "Receipt\nCustomer: {s}\nPaid with: {v}\nDefault card: yes", "Wallet\nName: {s}\nDefault: {v}"],
    "change": ["{s} made the {v} their default card, replacing the {old}.", "{s}'s default card changed from {old} to {v}.",
               "Hi,\n\nPlease charge {s}'s {v} from now on; the {old} has been cancelled.\n\nThanks,\nAccounts",
               "{s} swapped default cards: {old} out, {v} in."],
    "first_state": ["Use my {v} by default.", "default card is my {v}", "Charge things to my {v}, that's my main card."],
    "first_change": ["New default card: {v}. The {old} expired.", "set my default card to {v}",
                     "Please use my {v} now, I cut up the {old}."],
    "correction": ["No wait, {s}'s default is the {v}, not the {old}.", "Actually it's the {v} that {s} uses by default; {old} is wrong.",
                   "Sorry, mixed up the cards: {s}'s default is {v}, not {old}."],
    "as_of": ["As of {date}, {s}'s default card is the {v}.", "{s} has paid with the {v} by default since the {day_ord}.",
              "Wallet settings {date_iso}: {s}, default {v}."],
    "distractor": ["{s} paid for the taxi with the {x} just this once.", "{s}'s business card is the {x}, for work expenses only.",
                   "Should {s} make the {x} their default? The cashback is better.", "{s} lent the {x} to their daughter for the trip.",
                   "{s} doesn't use the {x} any more, it's in a drawer."],
    "q_current": ["What is {s}'s default card now?"],
    "q_as_of": ["What was {s}'s default card on {date}?"],
    "q_history": ["What was {s}'s default card before {v}?"],
}
T["backup_card"] = {
    "state": ["{s}'s backup card is the {v}.", "If {s}'s main card fails, use the {v}.", "Fallback payment for {s}: {v}.",
              "Wallet\nName: {s}\nBackup: {v}", "{s} keeps the {v} as a spare card."],
    "change": ["{s}'s backup card is now the {v} instead of the {old}.", "{s} changed their fallback card from {old} to {v}.",
               "{s} replaced the spare {old} with the {v}.", "backup card for {s} is {v} now, {old} gone"],
    "first_state": ["My backup card is the {v}.", "if the main one declines use my {v}", "Spare card: {v}."],
    "first_change": ["Backup card's now my {v}, the {old} is closed.", "change my backup card to {v}",
                     "Swap my fallback to the {v}, drop the {old}."],
    "correction": ["No wait, {s}'s backup is the {v}, not the {old}.", "Actually {s}'s spare card is {v}; {old} was the old one.",
                   "Correction: {s}'s fallback card is {v}, not {old}."],
    "as_of": ["As of {date}, {s}'s backup card is the {v}.", "Wallet settings {date_iso}: {s}, backup {v}.",
              "{s}'s fallback has been the {v} since {weekday} morning."],
    "distractor": ["{s} applied for the {x} but it hasn't arrived yet.", "Is the {x} {s}'s spare card? Not sure.",
                   "{s} might add the {x} as a backup if the bank approves it.", "{s}'s partner has the {x} as their backup.",
                   "The {x} isn't {s}'s, it was left at the till."],
    "q_current": ["What is {s}'s backup card now?"],
    "q_as_of": ["What was {s}'s backup card on {date}?"],
    "q_history": ["What was {s}'s backup card before {v}?"],
}
T["status"] = {
    "state": ["The {svc} in {env} is {v}.", "{svc} ({env}): {v}", "Checked the app, the {env} {svc} shows {v}.",
              '{{"device": "{svc}", "unit": "{env}", "conn": "{v}"}}', "the {svc} in {env} says {v}"],
    "change": ["The {svc} in {env} went from {old} to {v}.", "Notification: {env} {svc} is {v} (was {old}).",
               "Heads up, the {svc} in {env} is {v} now.", "{env} {svc} status changed: {old} -> {v}"],
    "correction": ["No wait, the {env} {svc} is {v}, I was looking at the other flat.",
                   "Actually the {svc} in {env} is {v}, not {old}; the app hadn't refreshed.",
                   "Sorry, {old} was the old reading, the {env} {svc} is {v}."],
    "as_of": ["As of {date}, the {svc} in {env} is {v}.", "{date_iso} {env}/{svc} state={v}",
              "The {env} {svc} has been {v} since {weekday} morning."],
    "distractor": ["The neighbour's {svc} is {x}, not ours in {env}.", "If the {svc} in {env} is {x} again, text me.",
                   "Is the {env} {svc} {x}? The light is blinking.", "The spare {svc} in the box was {x} when I tried it."],
    "q_current": ["What is the state of the {svc} in {env} now?"],
    "q_as_of": ["What was the state of the {svc} in {env} on {date}?"],
    "q_history": ["What was the state of the {svc} in {env} before it was {v}?"],
}
T["wifi_network"] = {
    "state": ["The {svc} in {env} is on the {v} network.", "{env} {svc} is joined to {v}.",
              '{{"device": "{svc}", "unit": "{env}", "ssid": "{v}"}}', "Wi-Fi for the {svc} in {env}: {v}",
              "Device list\nDevice: {svc} ({env})\nNetwork: {v}"],
    "change": ["Moved the {svc} in {env} from {old} to the {v} network.", "The {env} {svc} rejoined {v} (it was on {old}).",
               "{env} {svc} now connects to {v} instead of {old}.", "Router log: {svc} ({env}) left {old}, joined {v}"],
    "correction": ["No wait, the {env} {svc} is on {v}, not {old}.", "Actually the {svc} in {env} uses {v}; {old} is the other flat's.",
                   "Sorry, {env} {svc} is on {v}, I misread {old}."],
    "as_of": ["As of {date}, the {svc} in {env} is on {v}.", "Since the {day_ord} the {env} {svc} has been on {v}.",
              "Network scan {date_iso}: {env} {svc} on {v}"],
    "distractor": ["We could put the {env} {svc} on {x} if the signal stays bad.", "The guest laptop is on {x}, not the {svc}.",
                   "Does the {svc} in {env} even see {x}?", "The {svc} tried {x} during setup but gave up."],
    "q_current": ["Which Wi-Fi network is the {svc} in {env} joined to now?"],
    "q_as_of": ["Which Wi-Fi network was the {svc} in {env} joined to on {date}?"],
    "q_history": ["Which Wi-Fi network was the {svc} in {env} joined to before {v}?"],
}
T["warranty_end"] = {
    "state": ["The warranty on the {svc} in {env} runs until {v}.", "{env} {svc}: under warranty until {v}.",
              '{{"item": "{svc} ({env})", "warranty_until": "{v}"}}', "Receipt note: {svc} for {env}, warranty ends {v}."],
    "change": ["The warranty on the {env} {svc} was extended from {old} to {v}.",
               "Hi,\n\nYour cover for the {svc} ({env}) now ends on {v} rather than {old}.\n\nRegards,\nHomeCare Plans",
               "Extended the {svc} warranty in {env}: {v} (was {old})."],
    "correction": ["No wait, the {env} {svc} warranty ends {v}, not {old}.", "Actually it's {v} for the {svc} in {env}; {old} was the other flat's."],
    "as_of": ["As of {date}, the {svc} in {env} is covered until {v}.", "Warranty check {date_iso}: {env} {svc} until {v}."],
    "distractor": ["Would the {svc} in {env} be covered until {x} if we buy the extra plan?",
                   "The {svc} next door is under warranty until {x}.", "The quote offers cover for the {env} {svc} until {x}, if we pay."],
    "q_current": ["Until when is the {svc} in {env} under warranty now?"],
    "q_as_of": ["Until when was the {svc} in {env} under warranty, as known on {date}?"],
    "q_history": ["Until when was the {svc} in {env} under warranty before {v}?"],
}
T["hub_app"] = {
    "state": ["The {svc}s are controlled from {v}.", "We run every {svc} through {v}.", "Integrations\nDevice type: {svc}\nHub: {v}",
              "Use {v} to manage the {svc}s in both flats."],
    "change": ["Moved the {svc}s from {old} to {v}.", "The {svc}s are now paired with {v} instead of {old}.",
               "{svc}s migrated to {v}; removed them from {old}.", "switched the {svc}s over to {v}, {old} is gone"],
    "correction": ["No wait, the {svc}s run on {v}, not {old}.", "Actually it's {v} that controls the {svc}s; {old} only sends alerts."],
    "as_of": ["As of {date}, the {svc}s are managed in {v}.", "Since {weekday} morning the {svc}s have been on {v}.",
              "Hub export {date_iso}: {svc} -> {v}"],
    "distractor": ["Thinking about moving the {svc}s to {x}.", "Can {x} even talk to a {svc}?",
                   "My brother runs his {svc} on {x}.", "We tried {x} for the {svc}s for a day and went back."],
    "q_current": ["Which app or hub controls the {svc}s now?"],
    "q_as_of": ["Which app or hub controlled the {svc}s on {date}?"],
    "q_history": ["Which app or hub controlled the {svc}s before {v}?"],
}
T["venue"] = {
    "state": ["The {team} meets at {v}.", "Calendar: {team}, weekly, location {v}", "The {team} is at {v} as usual.",
              "Where: {v}\nWhat: {team}"],
    "change": ["The {team} has moved from {old} to {v}.", "Hi all,\n\nFrom today the {team} meets at {v}, not {old}.\n\nSee you there!",
               "{team} update: new venue {v} ({old} is being refurbished)", "fyi {team} now at {v} not {old}"],
    "correction": ["No wait, the {team} is at {v}, not {old}.", "Actually it's {v} for the {team}; {old} was last term."],
    "as_of": ["As of {date}, the {team} meets at {v}.", "Since the {day_ord} the {team} has met at {v}.",
              "{team} venue from {date_long}: {v}"],
    "distractor": ["The {team} social is at {x}, the usual venue hasn't changed.", "The {team} might use {x} if the roof isn't fixed.",
                   "Could the {team} meet at {x} once, for the AGM?", "The {team} is not at {x}, that was the other group."],
    "q_current": ["Where does the {team} meet now?"],
    "q_as_of": ["Where did the {team} meet on {date}?"],
    "q_history": ["Where did the {team} meet before {v}?"],
}
T["opening_hours"] = {
    "state": ["{p} is open {v}.", "Opening hours, {p}: {v}", "Sign on the door at {p}: OPEN {v}", "Shop | Hours\n{p} | {v}"],
    "change": ["{p} changed its hours from {old} to {v}.", "New opening hours at {p}: {v} (was {old}).",
               "Notice: from today {p} will be open {v}. Our old hours ({old}) no longer apply.",
               "{p} now opens {v} instead of {old}."],
    "correction": ["No wait, {p} is open {v}, not {old}.", "Actually {p}'s hours are {v}; {old} was the winter timetable."],
    "as_of": ["As of {date}, {p} is open {v}.", "Listing updated {date_short}: {p}, {v}.", "{p} has opened {v} since the {day_ord}."],
    "distractor": ["{p} will be open {x} on the bank holiday only.", "{p} is thinking about opening {x} if trade picks up.",
                   "Is {p} open {x}? The website says something else.", "The shop next to {p} is open {x}."],
    "q_current": ["What are {p}'s opening hours now?"],
    "q_as_of": ["What were {p}'s opening hours on {date}?"],
    "q_history": ["What were {p}'s opening hours before {v}?"],
}
T["supplier"] = {
    "state": ["{p} gets its stock from {v}.", "Main supplier for {p}: {v}.",
              '{{"doc": "invoice", "supplier": "{v}", "bill_to": "{p}", "status": "paid"}}', "Supplier | Shop\n{v} | {p}"],
    "change": ["{p} switched its main supplier from {old} to {v}.", "{p} now orders from {v}; the {old} account is closed.",
               "Hi,\n\nWelcome aboard! {v} is now {p}'s main supplier, replacing {old}.\n\nBest,\nSales team",
               "{p} dropped {old} and went with {v}."],
    "correction": ["No wait, {p}'s supplier is {v}, not {old}.", "Actually {p} buys from {v}; {old} only delivered once."],
    "as_of": ["As of {date}, {p}'s main supplier is {v}.", "Supplier list {date_iso}: {p}, {v}.", "{p} has used {v} since the {day_ord}."],
    "distractor": ["{p} asked {x} for a quote; they'll switch if the quote is ok.", "{x} delivered to {p} by mistake.",
                   "{p} bought one pallet from {x} when the usual van broke down.", "Does {x} deliver to {p}'s street?",
                   "{p} is not with {x}, that invoice was for another shop."],
    "q_current": ["Who is {p}'s main supplier now?"],
    "q_as_of": ["Who was {p}'s main supplier on {date}?"],
    "q_history": ["Who was {p}'s main supplier before {v}?"],
}
T["keyholder"] = {
    "state": ["{v} holds the keys for {p}.", "Keyholder for {p}: {v}.", "{v} opens up at {p} in the mornings.",
              "Alarm company form\nPremises: {p}\nKeyholder: {v}"],
    "change": ["{v} took over the keys for {p} from {old}.", "{p}'s keyholder changed from {old} to {v}.",
               "{old} handed the {p} keys to {v} today.", "txt from {p}: {v} has the keys now, not {old}"],
    "correction": ["No wait, {v} is {p}'s keyholder, not {old}.", "Actually {v} has the {p} keys; {old} only covered a week."],
    "as_of": ["As of {date}, {v} is the keyholder for {p}.", "{v} has held the {p} keys since {weekday} morning.",
              "Keyholder register {date_iso}: {p}, {v}."],
    "distractor": ["{x} borrowed the {p} keys once to let the plumber in.", "If {x} takes over {p}, they'll need the alarm code.",
                   "Can {x} open {p} on Saturday?", "{x} doesn't have keys to {p}, only the back gate fob."],
    "q_current": ["Who is the keyholder for {p} now?"],
    "q_as_of": ["Who was the keyholder for {p} on {date}?"],
    "q_history": ["Who was the keyholder for {p} before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # A form submission with question/answer records, a home hub's device state, a hub
    # integration list, a calendar search and a spreadsheet row.
    "person": ("forms.get_submission", {"form": "Household profile", "respondent": "{s}",
                                        "answers": [{"question": "{key}", "answer": "{v}"}]}),
    "deployment": ("homehub.device_state", {"device": {"kind": "{svc}", "location": "{env}"}, "attributes": {"{key}": "{v}"}}),
    "service": ("homehub.list_integrations", {"integrations": [{"device_type": "{svc}", "{key}": "{v}"}]}),
    "team": ("calendar.find_events", {"items": [{"summary": "{team}", "recurrence": "weekly", "{key}": "{v}"}]}),
    "project": ("sheets.read_row", {"sheet": "Shops", "row": {"shop": "{p}", "{key}": "{v}"}}),
}
TOOL_STAMP = ("observed", "%Y-%m-%dT%H:%M:%S.000Z")
JSON_KEYS = {"pharmacy": "nominated_pharmacy", "diet": "dietary_requirement", "seat": "seat_preference",
             "default_card": "default_payment_method", "backup_card": "backup_payment_method", "status": "connection",
             "wifi_network": "ssid", "warranty_end": "warranty_expires", "hub_app": "controller", "venue": "location",
             "opening_hours": "opening_hours", "supplier": "main_supplier", "keyholder": "keyholder"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "Add oat milk and eggs to the shopping list, and bin bags for {weekday}.",
        "remind me to put the bins out on {weekday}",
        "{name} is picking the kids up at {time} today.",
        "What's the weather like in {city} this weekend?",
        "Set a timer for {n} minutes for the {food}.",
        "Can you find a quick recipe for {food}? Something under {n} minutes.",
        "{name} says thanks for the lift, see you {weekday}.",
        "Book a table for {time} on {weekday}, somewhere that does {food}.",
        "Don't forget {topic}, it's on {weekday}.",
        "{name} sent photos from {city}; forecast there says {weather} all week.",
        "lol the cat knocked the plant over again",
        "Order more till roll for the shop, we have {n} left.",
        "{name} wants to talk about {topic} over {food} on {weekday}.",
    ],
    "tool": [
        '{{"forecast": {{"place": "{city}", "max_c": {n}, "outlook": "{weather}"}}}}',
        '{{"list": "Groceries", "added": "{food} ingredients", "items_total": {n}}}',
        '{{"parcel": "JD{n}{n2}GB", "carrier": "Evri", "eta": "{weekday}", "for": "{name}"}}',
        '{{"timer": {{"label": "{food}", "minutes": {n}, "state": "done"}}}}',
    ],
    "tool_names": ["weather.forecast", "lists.add_item", "parcels.track", "timers.status"],
}

REPORTERS = (("Ottilie", "user:ottilie.home"), ("Fergus", "user:fergus.shop"), ("Amara", "user:amara.admin"))
LOW_TRUST = (("document", "doc:household-binder-2025.pdf"), ("document", "doc:shop-contacts-old.xlsx"), ("peer", "agent:inbox-summarizer"))
