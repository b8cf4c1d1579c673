"""stats: kept for `from stats import ...`; the code is objstock/stats.py."""
from objstock.stats import betacf, betai, mean, natural, sd, var, welch

__all__ = ['betacf', 'betai', 'mean', 'natural', 'sd', 'var', 'welch']
