#pragma once

// The benchmark's objectives, the same formulas as sweepsampler_reference.py: Branin (2-D,
// minimum 0.397887), a rugged quadratic in log10(lr) (1-D, minimum about -0.1) and Hartmann-6
// (6-D on [0, 1], minimum -3.32237).
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

namespace ferry::bench {

inline double branin(double x1, double x2)
{
    const double pi = std::numbers::pi;
    const double b = 5.1 / (4 * pi * pi), c = 5 / pi, t = 1 / (8 * pi);
    return std::pow(x2 - b * x1 * x1 + c * x1 - 6, 2) + 10 * (1 - t) * std::cos(x1) + 10;
}

inline double ruggedLogQuadratic(double lr)
{
    const double x = std::log10(lr);
    return (x + 3) * (x + 3) + 0.1 * std::sin(1000 * x);
}

inline double hartmann6(const std::vector<double> &x)
{
    static constexpr std::array<double, 4> alpha = {1.0, 1.2, 3.0, 3.2};
    static constexpr double a[4][6] = {
        {10, 3, 17, 3.5, 1.7, 8}, {0.05, 10, 17, 0.1, 8, 14}, {3, 3.5, 1.7, 10, 17, 8}, {17, 8, 0.05, 10, 0.1, 14}};
    static constexpr double p[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                       {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                       {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                       {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
    double sum = 0;
    for (int i = 0; i < 4; ++i) {
        double inner = 0;
        for (int j = 0; j < 6; ++j)
            inner += a[i][j] * (x[std::size_t(j)] - p[i][j]) * (x[std::size_t(j)] - p[i][j]);
        sum += alpha[std::size_t(i)] * std::exp(-inner);
    }
    return -sum;
}

} // namespace ferry::bench
