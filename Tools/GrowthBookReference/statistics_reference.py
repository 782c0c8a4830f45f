#!/usr/bin/env python3
"""Reference figures for Tests/ExperimentsTests/MeanMetricTests.swift and DifferenceTests.swift:

    pip install gbstats==0.8.0 scipy   # gbstats pins numpy < 2
    python3 Tools/GrowthBookReference/statistics_reference.py

Welch t-tests, sequential tests and CUPED from GrowthBook's gbstats; t intervals and Wilson
intervals from SciPy; Newcombe's hybrid score interval (method 10) built over the latter;
the relative difference's interval on the log of the ratio (SciPy's relative_risk for rates,
gbstats' relative variance moved to the log scale for the rest)."""

import numpy as np
from scipy import stats
from gbstats.models.statistics import SampleMeanStatistic, ProportionStatistic, RegressionAdjustedStatistic, compute_theta
from gbstats.frequentist.tests import TwoSidedTTest, SequentialTwoSidedTTest, FrequentistConfig, SequentialConfig
np.set_printoptions(precision=17)
a = np.array([3, 0, 5, 2, 2, 7, 1, 0, 4, 3, 6, 2], float)
b = np.array([4, 6, 3, 8, 5, 2, 7, 4, 9, 5], float)
print("welch", stats.ttest_ind(b, a, equal_var=False))
def sm(x): return SampleMeanStatistic(n=len(x), sum=x.sum(), sum_squares=(x*x).sum())
for rel in ["absolute", "relative"]:
    r = TwoSidedTTest(sm(a), sm(b), FrequentistConfig(difference_type=rel)).compute_result()
    print("gb", rel, repr(r.expected), repr(r.ci), repr(r.p_value))
for x in (a, b):
    print("tint", x.mean(), stats.t.interval(0.95, len(x)-1, loc=x.mean(), scale=stats.sem(x)))
# sequential, means
for rel in ["absolute", "relative"]:
    r = SequentialTwoSidedTTest(sm(a), sm(b), SequentialConfig(difference_type=rel)).compute_result()
    print("seqmean", rel, repr(r.expected), repr(r.ci), repr(r.p_value))
# sequential proportions 450/1000 vs 520/1000
pa = ProportionStatistic(n=1000, sum=450); pb = ProportionStatistic(n=1000, sum=520)
for rel in ["absolute", "relative"]:
    r = SequentialTwoSidedTTest(pa, pb, SequentialConfig(difference_type=rel)).compute_result()
    print("seqprop", rel, repr(r.expected), repr(r.ci), repr(r.p_value))
# CUPED on means: covariates
xa = np.array([2, 1, 4, 2, 1, 6, 1, 0, 3, 3, 5, 1], float)
xb = np.array([3, 4, 3, 6, 4, 2, 5, 3, 7, 4], float)
def ra(y, x):
    return RegressionAdjustedStatistic(n=len(y), post_statistic=sm(y), pre_statistic=sm(x), post_pre_sum_of_products=(x*y).sum(), theta=0)
A = ra(a, xa); B = ra(b, xb)
th = compute_theta(A, B); A.theta = th; B.theta = th
print("theta", repr(th))
for rel in ["absolute", "relative"]:
    r = TwoSidedTTest(A, B, FrequentistConfig(difference_type=rel)).compute_result()
    print("cuped", rel, repr(r.expected), repr(r.ci), repr(r.p_value))
for rel in ["absolute", "relative"]:
    r = SequentialTwoSidedTTest(A, B, SequentialConfig(difference_type=rel)).compute_result()
    print("cupedseq", rel, repr(r.expected), repr(r.ci), repr(r.p_value))
print("sums a", len(a), a.sum(), (a*a).sum(), xa.sum(), (xa*xa).sum(), (xa*a).sum())
print("sums b", len(b), b.sum(), (b*b).sum(), xb.sum(), (xb*xb).sum(), (xb*b).sum())
# Newcombe method 10 from scipy Wilson intervals
def newcombe(s0, n0, s1, n1):
    l0,u0 = stats.binomtest(s0, n0).proportion_ci(method="wilson"); l1,u1 = stats.binomtest(s1, n1).proportion_ci(method="wilson")
    p0, p1 = s0/n0, s1/n1; d = p1-p0
    return d, d-np.sqrt((p1-l1)**2+(u0-p0)**2), d+np.sqrt((u1-p1)**2+(p0-l0)**2)
for case in [(48,80,56,70), (2,3,1,2), (2,3,1,3), (3,3,3,3), (0,10,0,10), (0,5,5,5), (45,100,60,100)]:
    print("newcombe", case, repr(newcombe(*case)))
print("t q", repr(stats.t.ppf(0.975, 3.5)), repr(stats.t.sf(2.1, 7.3)*2))
# The relative difference's interval on the log of the ratio (MetricSums.swift,
# relativeInterval). Rates, fixed horizon: Katz's log interval of the risk ratio, SciPy's own.
from scipy.stats.contingency import relative_risk
for case in [(45,100,60,100), (48,80,56,70), (5,10,1,10), (2,3,1,3), (450,1000,520,1000)]:
    s0, n0, s1, n1 = case
    rr = relative_risk(s1, n1, s0, n0); ci = rr.confidence_interval(0.95)
    print("logratio rate", case, repr(rr.relative_risk - 1), repr(ci.low - 1), repr(ci.high - 1))
# Means, sequential and CUPED: gbstats' relative estimate and variance (its symmetric
# interval's half width is z·√V), moved to the log scale: r·exp(±half/r) − 1, r = 1 + estimate.
def logscale(r):
    e = r.expected; lo, hi = r.ci; half = (hi - lo) / 2; q = 1 + e
    return (repr(e), repr(q*np.exp(-half/q) - 1), repr(q*np.exp(half/q) - 1))
print("logratio welch", logscale(TwoSidedTTest(sm(a), sm(b), FrequentistConfig(difference_type="relative")).compute_result()))
print("logratio seqmean", logscale(SequentialTwoSidedTTest(sm(a), sm(b), SequentialConfig(difference_type="relative")).compute_result()))
print("logratio seqprop", logscale(SequentialTwoSidedTTest(pa, pb, SequentialConfig(difference_type="relative")).compute_result()))
print("logratio cuped", logscale(TwoSidedTTest(A, B, FrequentistConfig(difference_type="relative")).compute_result()))
print("logratio cupedseq", logscale(SequentialTwoSidedTTest(A, B, SequentialConfig(difference_type="relative")).compute_result()))
