from referee.classic import PROCEDURES
from referee.ruleset import Params, Ruleset
def ruleset(flag=None):
    return Ruleset(Params(ruleset="waw85"), PROCEDURES)
