"""The words a world is made of, one vocabulary per template set.

The two sets share no name and no value: an engine tuned on ``tune`` has never seen a ``heldout``
city, employer, service or status word. Person names come in look-alike pairs (Ana/Anna), so two
people whose names embed almost identically each get their own slots.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Vocabulary:
    name_pairs: tuple[tuple[str, str], ...]
    """Look-alike first names; both of a pair live in the same world."""
    surnames: tuple[str, ...]
    """Appended to names when a world needs more people than the pairs give."""
    cities: tuple[str, ...]
    employers: tuple[str, ...]
    languages: tuple[str, ...]
    roles: tuple[str, ...]
    services: tuple[str, ...]
    environments: tuple[str, str]
    """The look-alike deployments of every service (staging/production)."""
    service_statuses: tuple[str, ...]
    regions: tuple[str, ...]
    owner_teams: tuple[str, ...]
    teams: tuple[str, ...]
    """Teams with an on-call rota."""
    projects: tuple[str, ...]
    project_statuses: tuple[str, ...]
    version_style: str
    """How versions look: ``semver`` (2.3.1) or ``build`` (build 1432)."""
    date_format: str
    """strftime format of dates in statements and questions."""
    foods: tuple[str, ...]
    topics: tuple[str, ...]
    groups: tuple[str, ...] = ()
    """Teams a person belongs to (the ``fresh`` set's ``team`` attribute)."""
    databases: tuple[str, ...] = ()
    """What a deployment stores its data in (the ``fresh`` set's ``database`` attribute)."""
    pools: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Values of attributes only one set has, as (attribute, values) pairs."""


TUNE = Vocabulary(
    name_pairs=(
        ("Ana", "Anna"), ("Jon", "John"), ("Marta", "Martha"), ("Eric", "Erik"), ("Sara", "Sarah"),
        ("Lena", "Lina"), ("Mateo", "Matteo"), ("Katrin", "Katrina"), ("Nils", "Niels"), ("Tomas", "Thomas"),
        ("Ida", "Ada"), ("Leon", "Leo"), ("Mia", "Maia"), ("Hannes", "Hanne"), ("Elin", "Ellen"),
    ),
    surnames=("Berg", "Costa", "Novak", "Ferreira", "Lund", "Moreau", "Weber", "Rossi"),
    cities=("Berlin", "Lisbon", "Madrid", "Vienna", "Prague", "Dublin", "Oslo", "Warsaw", "Zurich",
            "Amsterdam", "Copenhagen", "Helsinki", "Brussels", "Munich", "Porto", "Lyon"),
    employers=("Acme Corp", "Globex", "Initech", "Umbrella Labs", "Hooli", "Vandelay Industries",
               "Stark Logistics", "Wayne Analytics", "Soylent Foods", "Cyberdyne Systems", "Tyrell Data", "Wonka Retail"),
    languages=("Python", "Go", "Rust", "Java", "TypeScript", "Ruby", "C++", "Clojure"),
    roles=("backend engineer", "data scientist", "product manager", "site reliability engineer",
           "engineering manager", "designer", "security analyst", "technical writer", "QA engineer"),
    services=("billing-api", "auth-service", "search-gateway", "payments-worker", "notification-hub",
              "inventory-db", "checkout-web", "ledger-sync", "report-builder", "media-cdn", "user-profile",
              "order-router", "geo-lookup", "email-relay", "audit-log"),
    environments=("staging", "production"),
    service_statuses=("healthy", "degraded", "down", "under maintenance", "read-only"),
    regions=("eu-west-1", "us-east-1", "eu-central-1", "ap-southeast-2", "us-west-2", "sa-east-1", "ca-central-1"),
    owner_teams=("platform team", "payments team", "growth team", "identity team", "data team", "infra team",
                 "search team", "mobile team"),
    teams=("platform", "payments", "identity", "data", "infra", "search", "mobile", "growth", "security", "billing"),
    projects=("Falcon", "Granite", "Nimbus", "Atlas", "Beacon", "Cobalt", "Delta Wing", "Ember", "Fjord",
              "Harbor", "Juniper", "Keystone", "Lumen", "Meridian", "Northstar", "Quartz", "Redwood", "Summit",
              "Tidal", "Vertex"),
    project_statuses=("planning", "in progress", "on hold", "blocked", "done"),
    version_style="semver",
    date_format="%Y-%m-%d",
    foods=("ramen", "tacos", "falafel", "sushi", "pizza", "pho"),
    topics=("the quarterly review", "the offsite agenda", "the new coffee machine", "the hiring plan",
            "the team photo", "the holiday schedule", "the office move", "the parking rules"),
)

HELDOUT = Vocabulary(
    name_pairs=(
        ("Mari", "Marie"), ("Aron", "Aaron"), ("Iris", "Iris-Mae"), ("Kai", "Kaia"), ("Noor", "Nora"),
        ("Ravi", "Rav"), ("Sofie", "Sophie"), ("Teo", "Theo"), ("Yara", "Yarah"), ("Zoe", "Zoey"),
        ("Emil", "Emile"), ("Greta", "Gretta"), ("Ines", "Inez"), ("Olek", "Oleg"), ("Pia", "Pina"),
    ),
    surnames=("Okafor", "Tanaka", "Haddad", "Oliveira", "Kowalczyk", "Nguyen", "Mensah", "Varga"),
    cities=("Osaka", "Quito", "Nairobi", "Montreal", "Auckland", "Seoul", "Lima", "Cape Town", "Austin",
            "Melbourne", "Bogota", "Hanoi", "Accra", "Tbilisi", "Reykjavik", "Valparaiso"),
    employers=("Northwind Traders", "Contoso", "Fabrikam", "Blue Yonder Air", "Litware", "Proseware",
               "Tailspin Toys", "Woodgrove Bank", "Adventure Works", "Lucerne Publishing", "Margie Travel", "Fourth Coffee"),
    languages=("Kotlin", "Elixir", "Scala", "Haskell", "C#", "Swift", "Julia", "OCaml"),
    roles=("staff engineer", "machine learning engineer", "program manager", "platform engineer",
           "director of engineering", "UX researcher", "penetration tester", "developer advocate", "release manager"),
    services=("ticketing-core", "identity-broker", "catalog-indexer", "refund-engine", "push-dispatcher",
              "pricing-store", "cart-frontend", "settlement-batch", "metrics-ingest", "image-resizer",
              "session-cache", "routing-mesh", "tax-calculator", "sms-bridge", "consent-ledger"),
    environments=("sandbox", "live"),
    service_statuses=("operational", "impaired", "offline", "in a maintenance window", "throttled"),
    regions=("Frankfurt DC", "Ashburn DC", "Singapore DC", "Sydney DC", "Sao Paulo DC", "Tokyo DC", "Dublin DC"),
    owner_teams=("core services squad", "checkout squad", "trust squad", "analytics squad", "reliability squad",
                 "catalog squad", "apps squad", "partners squad"),
    teams=("core services", "checkout", "trust", "analytics", "reliability", "catalog", "apps", "partners",
           "edge", "ledger"),
    projects=("Orion", "Pelican", "Saffron", "Tundra", "Umber", "Willow", "Xenon", "Yukon", "Zephyr", "Aurora",
              "Basalt", "Cedar", "Dune", "Estuary", "Fennel", "Glacier", "Heron", "Indigo", "Jasper", "Kestrel"),
    project_statuses=("scoping", "underway", "paused", "at risk", "shipped"),
    version_style="build",
    date_format="%d %B %Y",
    foods=("dumplings", "curry", "empanadas", "poke", "shawarma", "bibimbap"),
    topics=("the all-hands slides", "the volunteering day", "the standing desks", "the referral bonus",
            "the badge printer", "the summer party", "the new wiki theme", "the bike storage"),
)

FRESH = Vocabulary(
    name_pairs=(
        ("Petra", "Petr"), ("Jana", "Janna"), ("Milan", "Milana"), ("Ruth", "Ruthie"), ("Dana", "Dina"),
        ("Karl", "Carl"), ("Lukas", "Lucas"), ("Mira", "Myra"), ("Oskar", "Oscar"), ("Vera", "Vero"),
        ("Hugo", "Hugh"), ("Edith", "Edit"), ("Bruno", "Bruna"), ("Alma", "Alva"), ("Felix", "Feliks"),
    ),
    surnames=("Lindqvist", "Ochieng", "Brandt", "Kaur", "Svoboda", "Quispe", "Moller", "Abara"),
    cities=("Marseille", "Gdansk", "Bergen", "Tallinn", "Riga", "Seville", "Bilbao", "Turin", "Ghent", "Leeds",
            "Glasgow", "Cork", "Aarhus", "Malmo", "Tampere", "Graz"),
    employers=("Pinewood Robotics", "Saltmarsh Media", "Brightline Freight", "Oakridge Health", "Kettle Software",
               "Redfern Capital", "Copperleaf Energy", "Longboat Games", "Mistral Optics", "Foxglove Pharma",
               "Ironbark Mining", "Seabright Hotels"),
    languages=(),
    roles=(),
    services=("invoice-mailer", "quota-keeper", "feed-ranker", "fraud-scorer", "upload-proxy", "badge-issuer",
              "coupon-api", "stock-watcher", "graph-query", "sync-agent", "locale-packs", "printer-spool",
              "chat-relay", "map-tiles", "vault-keys"),
    environments=("preprod", "prod"),
    service_statuses=("green", "flapping", "unreachable", "paged", "draining"),
    regions=(),
    owner_teams=("storage guild", "money movers crew", "growth pod", "access crew", "insights guild",
                 "runtime crew", "discovery pod", "handheld crew"),
    teams=("storage", "money movers", "access", "insights", "runtime", "discovery", "handheld", "frontier",
           "compliance", "tooling"),
    projects=("Marigold", "Osprey", "Quillon", "Rampart", "Sequoia", "Thistle", "Vireo", "Wren", "Alder", "Bramble",
              "Corvid", "Dovetail", "Egret", "Fulcrum", "Gannet", "Hawthorn", "Ibis", "Jackdaw", "Kittiwake", "Larch"),
    project_statuses=("discovery", "pilot", "rollout", "frozen", "retired"),
    version_style="rel",
    date_format="%B %-d, %Y",
    foods=("paella", "gnocchi", "kimchi stew", "pierogi", "laksa", "arepas"),
    topics=("the mentoring programme", "the security training", "the charity run", "the new expense tool",
            "the library corner", "the quiet room rules", "the garden project", "the badge photos"),
    groups=("Puffin squad", "treasury crew", "welcome pod", "uptime guild", "pricing cell", "tablet wing",
            "lookup cell", "perimeter crew"),
    databases=("PostgreSQL", "MySQL", "MongoDB", "Cassandra", "DynamoDB", "Redis", "SQLite", "CockroachDB"),
)

VOCABULARIES = {"tune": TUNE, "heldout": HELDOUT, "fresh": FRESH}
