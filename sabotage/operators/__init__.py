"""One module per operator family; ALL fixes the order in which mutants are generated (earlier wins a tie)."""

from sabotage.operators.arithmetic import SwapArithmetic
from sabotage.operators.boolean import SwapBoolean
from sabotage.operators.calls import DropCall, SwapArguments
from sabotage.operators.comparison import SwapComparison
from sabotage.operators.constants import PerturbConstant
from sabotage.operators.params import NegateParam, ReturnParam
from sabotage.operators.returns import ReturnEmpty
from sabotage.operators.statements import DeleteStatement

ALL = (
    NegateParam(),
    ReturnParam(),
    DropCall(),
    SwapArithmetic(),
    SwapComparison(),
    SwapBoolean(),
    PerturbConstant(),
    ReturnEmpty(),
    DeleteStatement(),
    SwapArguments(),
)

__all__ = [
    "ALL",
    "DeleteStatement",
    "DropCall",
    "NegateParam",
    "PerturbConstant",
    "ReturnEmpty",
    "ReturnParam",
    "SwapArguments",
    "SwapArithmetic",
    "SwapBoolean",
    "SwapComparison",
]
