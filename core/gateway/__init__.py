"""Layer 0, the trust gateway: every write passes it before anything is stored."""

from deltacore.gateway.admission import Admission, Gateway, infer_channel

__all__ = ["Admission", "Gateway", "infer_channel"]
