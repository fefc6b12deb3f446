#version 450
layout(location = 0) out vec4 v0;
void main() {
    uint id = uint(gl_VertexIndex);
    float x = float(id & 1u);
    float y = float(id >> 1u);
    gl_Position = vec4(fma(x, 1.6, -0.8), fma(y, 1.6, -0.8), 0.0, 1.0);
    v0 = vec4(x, y, 0.5, 1.0);
}
