"""What surrounds a sentence's statement, read off before the statement itself: a label ("Anna's
city:", "Correction:", "Update on the pump:"), a date leading or trailing it ("As of 17-05-2026,"),
the value it denies (", not Berlin", "(not Paris)"), the value it replaced ("(was on hold)",
"(previously 2025.8)") and the writer's afterthought after a dash. ``extract.py`` applies them.
"""

from __future__ import annotations

import re

from deltacore.belief.dates import DATE

# The comma after a leading date may be left out before the sentence's subject: "Since Monday
# the hood has been …", "From today Kai reports to …".
LEAD_DATE = re.compile(
    rf"^(?P<word>as of|since|from|starting|effective|beginning|on|in)\s+(?P<date>{DATE})(?:\s*,\s*|\s+(?=(?-i:[Tt]he\b|[A-Z])))",
    re.IGNORECASE,
)

TAIL_DATE = re.compile(rf"\s*,?\s+(?P<word>as of|since|starting|effective|from)\s+(?P<date>{DATE})$", re.IGNORECASE)

# A bare weekday is a past day after "since" ("since Monday"); after "from" or "starting" it
# may be the next one: not sure when.
WEEKDAY_ONLY = re.compile(r"^(?:mon|tues|wednes|thurs|fri|satur|sun)day$", re.IGNORECASE)

LEAD_TIME_WORD = re.compile(r"^(?:as of|since|starting|effective)\b", re.IGNORECASE)

CORRECTION = re.compile(r"^(?:correction|update|actually|erratum|to be clear)\s*[:,\-–]\s*", re.IGNORECASE)

DENIAL = re.compile(r"\s*[,;]?\s+(?:not|rather than|instead of)\s+(?P<denied>[^,;()]{1,60}(?:\s*\([^()]{1,40}\))?)$", re.IGNORECASE)

# "… (not Paris)", "… (Paris was wrong)": a parenthesised correction of the old value.
DENIAL_PAREN = re.compile(
    r"\s*\(\s*(?:not\s+(?P<not>[^()]{1,40}?)|(?P<was>[^()]{1,40}?)\s+(?:was|is)\s+(?:wrong|incorrect|outdated|a mistake|an error))\s*\)$",
    re.IGNORECASE,
)

# "Label: sentence". A label that is a correction marks the statement as one; a short label that
# is not ("Update:", "FYI:") is dropped; "Anna's city: Berlin" is a statement in itself.
LABEL = re.compile(r"^(?P<label>[A-Za-z][\w'’ -]{0,40}?)\s*:\s+(?P<body>\S.*)$")

# "Correction:", and a longer label that says it is one ("Correction to the org chart:").
CORRECTION_LABELS = re.compile(
    r"^(?:correction|corrected|erratum|to be clear|to clarify|clarification|actually|amendment)(?:$|\s+(?:to|for|of|on)\b)"
    r"|^(?:typo|fix|mistake)\b|\b(?:list|sheet|record|records|register|entry|table)\s+(?:fix|correction)$|\b(?:was|were)\s+wrong$",
    re.IGNORECASE,
)

# "… (was on hold)", "(the old 2240 has been handed back)": the value it replaced, said after the new one.
WAS_PAREN = re.compile(
    r"\s*\(\s*(?:(?:was|previously|formerly)\s+(?P<old>[^()]{1,40}?)|(?:the\s+)?old\s+(?:one,?\s+)?(?P<gone>[^()\s]{1,30})(?:\s+[^()]{0,40})?)\s*\)$",
    re.IGNORECASE,
)

# A dash, then a remark of the writer's: "… - I was looking at the other ward's", "… - can
# someone update the whiteboard?", ", please stop using 2268". Not part of the statement (and
# its "?" asks nothing of it).
AFTERTHOUGHT = re.compile(
    r"(?:\s+[-–—]+\s+(?:I|I['’]m|I['’]ve|I['’]d|we|you|can|could|please|sorry|thanks|thank|that|this|it|they|someone|somebody|anyone)"
    r"|\s*,\s*(?:please|thanks|thank\s+you|cheers))\b.*$",
    re.IGNORECASE,
)

# A label that only says what the news is about, and a body that calls it "it".
NEWS_LABEL = re.compile(r"^(?:(?:status\s+)?update|news|heads[- ]up)\s+(?:on|for|about|re)\s+(?P<subject>.{1,60})$", re.IGNORECASE)

IT_IS = re.compile(r"^it(?:['’]s|\s+is|\s+has\s+been)\s+", re.IGNORECASE)
