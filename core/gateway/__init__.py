"""Layer 0, the trust gateway: every write passes it before anything is stored.

Only light modules are re-exported here; the scorer,
playbook and honeypots are imported from their modules.
"""

from deltacore.gateway.admission import Admission, Gateway, infer_channel
from deltacore.trust_policy import TrustPolicy

__all__ = ["Admission", "Gateway", "TrustPolicy", "infer_channel"]
