#version 450
layout(set = 0, binding = 4, std140) uniform Bank3 { uvec4 c[2]; } b3;
layout(location = 0) in vec4 a0;
layout(location = 1) in vec4 a1;
layout(location = 0) noperspective out vec4 v0;
void main() {
    vec4 m = uintBitsToFloat(b3.c[0]);
    vec4 t = uintBitsToFloat(b3.c[1]);
    precise float x = (a0.x * m.x + a0.y * m.z) + t.x;
    precise float y = (a0.x * m.y + a0.y * m.w) + t.y;
    gl_Position = vec4(x, y, a0.z, a0.w);
    v0 = a1;
}
