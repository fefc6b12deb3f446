// Sparse matrix times vector, CSR, one thread per row (scalar CSR): rows of 8 to 56 non-zeros at random
// columns, so loads of x scatter; a unit is four products. Small integer values keep every sum exact.
// Host reference: every 7th row.
#include "bench.h"

extern "C" __global__ void spmv_csr(const int *row_start, const int *cols, const float *vals, const float *x,
                                    float *y, int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (int k = row_start[r]; k < row_start[r + 1]; ++k) acc += vals[k] * x[cols[k]];
    y[r] = acc;
}

int main(int argc, char **argv)
{
    Opts o = parse_opts(argc, argv);
    int rows = o.small ? 4096 : 1 << 21;
    Lcg g(19);
    std::vector<int> start(rows + 1);
    start[0] = 0;
    for (int r = 0; r < rows; ++r) start[r + 1] = start[r] + g.range(8, 56);
    int nnz = start[rows];
    std::vector<int> cols(nnz);
    std::vector<float> vals(nnz);
    for (int k = 0; k < nnz; ++k) cols[k] = (int)(g.next() % (uint32_t)rows), vals[k] = (float)g.range(-8, 7);
    auto x = small_floats(rows, 20);
    int *ds = to_device(start), *dc = to_device(cols);
    float *dv = to_device(vals), *dx = to_device(x), *dy = device_filled<float>(rows);
    auto unit = [&] {
        for (int r = 0; r < 4; ++r) spmv_csr<<<grid_for(rows, 128), 128>>>(ds, dc, dv, dx, dy, rows);
    };
    unit();
    CHECK(cudaDeviceSynchronize());
    auto y = to_host(dy, rows);
    bool ok = true;
    for (int r = 0; r < rows; r += 7) {
        double s = 0;
        for (int k = start[r]; k < start[r + 1]; ++k) s += (double)vals[k] * x[cols[k]];
        ok &= y[r] == (float)s;
    }
    Hash h;
    h.add(y);
    Timing t = time_unit(o, unit);
    char size[64];
    snprintf(size, sizeof size, "rows=%d,nnz=%d,x4", rows, nnz);
    return report("spmv", size, t, h, ok);
}
