-- q3c fallback: the exact geometric tests of the q3c 2.0.0 functions, for servers without the extension.
-- Semantics follow Q3C.md (all angles in degrees, strict "<" boundaries, STRICT = NULL in, NULL out).
-- Only the exact test is implemented: there is no pixel index, so spatial predicates scan sequentially.
-- Everything lives in schema public; schema alerce must hold only the ALeRCE tables.

-- Haversine term sin^2(d/2), with q3c's own expression (reproduces its boundary decisions bit for bit).
CREATE OR REPLACE FUNCTION public.q3c_sindist(double precision, double precision, double precision, double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT power(sin(radians(($1 - $3) / 2)), 2)
           * (power(cos(radians(($2 + $4) / 2)), 2) - power(sin(radians(($2 - $4) / 2)), 2))
           + power(sin(radians(($2 - $4) / 2)), 2)
$$;

-- Great-circle distance in degrees.
CREATE OR REPLACE FUNCTION public.q3c_dist(double precision, double precision, double precision, double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT 2 * asin(sqrt(public.q3c_sindist($1, $2, $3, $4))) / radians(1)
$$;

-- True iff the two points are closer than radius degrees; a radius <= 0 is false (as in q3c 2.0.0).
CREATE OR REPLACE FUNCTION public.q3c_join(
    double precision, double precision, double precision, double precision, double precision)
RETURNS boolean LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT $5 > 0 AND public.q3c_sindist($1, $2, $3, $4) < power(sin(radians($5) / 2), 2)
$$;

-- Cone search: table columns first, then the centre and the radius; a negative radius acts as its absolute value.
CREATE OR REPLACE FUNCTION public.q3c_radial_query(
    double precision, double precision, double precision, double precision, double precision)
RETURNS boolean LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT public.q3c_sindist($1, $2, $3, $4) < power(sin(radians($5) / 2), 2)
$$;

-- Point (ra, dec) inside the ellipse centred at (ra0, dec0), tested in the gnomonic projection at the centre.
-- Arguments: ra, dec, ra0, dec0, semi-major axis, axis ratio b/a, position angle (north through east).
CREATE OR REPLACE FUNCTION public.q3c_ellipse_query(
    double precision, double precision, double precision, double precision,
    double precision, double precision, double precision)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    px double precision := cos(radians($2)) * cos(radians($1));
    py double precision := cos(radians($2)) * sin(radians($1));
    pz double precision := sin(radians($2));
    sa double precision := sin(radians($3));
    ca double precision := cos(radians($3));
    sd double precision := sin(radians($4));
    cd double precision := cos(radians($4));
    sp double precision := sin(radians($7));
    cp double precision := cos(radians($7));
    pc double precision;
    pn double precision;
    pe double precision;
    x double precision;
    y double precision;
    t2 double precision := power(tan(radians($5)), 2);
BEGIN
    pc := px * cd * ca + py * cd * sa + pz * sd;
    IF pc <= 0 THEN
        RETURN false;
    END IF;
    pn := -px * sd * ca - py * sd * sa + pz * cd;  -- p . north
    pe := -px * sa + py * ca;                      -- p . east
    x := (cp * pn + sp * pe) / pc;
    y := (cp * pe - sp * pn) / pc;
    RETURN x * x / t2 + y * y / ($6 * $6 * t2) < 1;
END
$$;

-- Same test as q3c_ellipse_query, with the ellipse centred on the first pair and the second pair tested.
CREATE OR REPLACE FUNCTION public.q3c_ellipse_join(
    double precision, double precision, double precision, double precision,
    double precision, double precision, double precision)
RETURNS boolean LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT public.q3c_ellipse_query($3, $4, $1, $2, $5, $6, $7)
$$;

-- Point in a great-circle polygon given as ARRAY[ra1, dec1, ra2, dec2, ...]: even-odd rule in the gnomonic
-- projection at the normalised mean of the vertex vectors.
CREATE OR REPLACE FUNCTION public.q3c_poly_query(double precision, double precision, double precision[])
RETURNS boolean LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    n integer := coalesce(cardinality($3), 0) / 2;
    v double precision[] := array(SELECT unnest($3));
    wx double precision[];
    wy double precision[];
    wz double precision[];
    mx double precision := 0;
    my double precision := 0;
    mz double precision := 0;
    norm double precision;
    ax double precision;
    ay double precision;
    az double precision;
    e1 double precision[];
    e2 double precision[];
    u double precision[];
    w double precision;
    qx double precision;
    qy double precision;
    xs double precision[];
    ys double precision[];
    inside boolean := false;
    j integer;
BEGIN
    IF n < 3 OR cardinality($3) % 2 <> 0 OR array_position(v, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'Invalid polygon: give at least 3 vertices as an even number of RA, Dec values';
    END IF;
    FOR i IN 1 .. n + 1 LOOP  -- element n + 1 is the tested point
        IF i <= n THEN
            ax := radians(v[2 * i - 1]);
            ay := radians(v[2 * i]);
        ELSE
            ax := radians($1);
            ay := radians($2);
        END IF;
        wx[i] := cos(ay) * cos(ax);
        wy[i] := cos(ay) * sin(ax);
        wz[i] := sin(ay);
        IF i <= n THEN
            mx := mx + wx[i];
            my := my + wy[i];
            mz := mz + wz[i];
        END IF;
    END LOOP;
    norm := sqrt(mx * mx + my * my + mz * mz);
    mx := mx / norm;
    my := my / norm;
    mz := mz / norm;
    -- e1 = normalise(axis x m) with an axis far from m, e2 = m x e1.
    IF abs(mz) < 0.9 THEN
        e1 := ARRAY[-my, mx, 0];
    ELSE
        e1 := ARRAY[0, -mz, my];
    END IF;
    norm := sqrt(e1[1] * e1[1] + e1[2] * e1[2] + e1[3] * e1[3]);
    e1 := ARRAY[e1[1] / norm, e1[2] / norm, e1[3] / norm];
    e2 := ARRAY[my * e1[3] - mz * e1[2], mz * e1[1] - mx * e1[3], mx * e1[2] - my * e1[1]];
    FOR i IN 1 .. n + 1 LOOP
        u := ARRAY[wx[i], wy[i], wz[i]];
        w := u[1] * mx + u[2] * my + u[3] * mz;
        IF i = n + 1 AND w <= 0 THEN
            RETURN false;
        END IF;
        xs[i] := (u[1] * e1[1] + u[2] * e1[2] + u[3] * e1[3]) / w;
        ys[i] := (u[1] * e2[1] + u[2] * e2[2] + u[3] * e2[3]) / w;
    END LOOP;
    qx := xs[n + 1];
    qy := ys[n + 1];
    j := n;
    FOR i IN 1 .. n LOOP
        IF (ys[i] > qy) <> (ys[j] > qy)
           AND qx < (xs[j] - xs[i]) * (qy - ys[i]) / (ys[j] - ys[i]) + xs[i] THEN
            inside := NOT inside;
        END IF;
        j := i;
    END LOOP;
    RETURN inside;
END
$$;

-- The polygon form: '((ra1,dec1),(ra2,dec2),...)'::polygon. extra_float_digits = 3 keeps the text round trip exact.
CREATE OR REPLACE FUNCTION public.q3c_poly_query(double precision, double precision, polygon)
RETURNS boolean LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET extra_float_digits = 3 AS $$
    SELECT public.q3c_poly_query($1, $2, array(SELECT unnest(translate($3::text, '()', '{}')::double precision[])))
$$;

-- q3c_in_poly gives the same result as q3c_poly_query (the real one skips the index prefilter).
CREATE OR REPLACE FUNCTION public.q3c_in_poly(double precision, double precision, double precision[])
RETURNS boolean LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT public.q3c_poly_query($1, $2, $3)
$$;

CREATE OR REPLACE FUNCTION public.q3c_in_poly(double precision, double precision, polygon)
RETURNS boolean LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT public.q3c_poly_query($1, $2, $3)
$$;
